import { AlreadyRunningError } from "../errors.ts";
import { validateParams } from "../jobs/job-validation.ts";
import type { Queue } from "../queue/queue.ts";
import { RUN_QUEUE, RUN_SEND_DEFAULTS, type RunRequestPayload } from "../queue/run-queue.ts";
import { executeRun } from "../runs/job-runner.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { FireDispatcher } from "./fire.ts";

/** Who scheduled runs are requested by (the run handler skips them when the job is running). */
export const SCHEDULER_REQUESTER = "scheduler";

/**
 * Fires queue a run request on `tidemark.run` for the workers (the default: `serve` and any
 * number of `worker` processes share the load). A fire is skipped when the job's lease is
 * held (it is running) or a scheduled request for it is still queued or being handled
 * (singleton key `schedule:<job>`).
 */
export function queueDispatcher(runtime: Runtime, queue: Queue): FireDispatcher {
  return async ({ job, fireAt }) => {
    const params = validateParams(runtime.registry, job.name, job.type, job.params);
    const leaseKey =
      runtime.registry.jobType(job.type).leaseKey?.(job.name, params) ?? `job:${job.name}`;
    if (await runtime.leases.isHeld(leaseKey)) return "skipped-running";
    const payload: RunRequestPayload = {
      job: job.name,
      dryRun: false,
      limit: null,
      requestedBy: SCHEDULER_REQUESTER,
    };
    // A fire dispatched before its time (pg-boss mode adds the jitter here) waits in the queue.
    const delayMs = fireAt.getTime() - runtime.clock.now().getTime();
    const id = await queue.send(RUN_QUEUE, payload, {
      ...RUN_SEND_DEFAULTS,
      singletonKey: `schedule:${job.name}`,
      startAfterSeconds: delayMs > 0 ? Math.ceil(delayMs / 1000) : undefined,
    });
    return id === null ? "skipped-queued" : "queued";
  };
}

/**
 * Fires run the job in this process and wait for it (no queue: tests, single-process use).
 * A job already running elsewhere (lease held) is skipped.
 */
export function inlineDispatcher(runtime: Runtime): FireDispatcher {
  return async ({ job }, signal) => {
    try {
      await executeRun(runtime, {
        jobName: job.name,
        jobType: job.type,
        params: job.params,
        signal,
      });
      return "ran";
    } catch (err) {
      if (err instanceof AlreadyRunningError) return "skipped-running";
      throw err;
    }
  };
}
