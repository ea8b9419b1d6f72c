import { AlreadyRunningError } from "../errors.ts";
import type { Queue } from "../queue/queue.ts";
import { checkRunRequest, sendRunRequest } from "../run-requests/request-run.ts";
import { SCHEDULER_REQUESTER } from "../run-requests/run-request.ts";
import { executeRun } from "../runs/job-runner.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { FireDispatcher } from "./fire.ts";

/**
 * Fires queue a run request on `tidemark.run` for the workers (the default: `serve` and any
 * number of `worker` processes share the load), through the one run-request sender. A fire
 * is skipped when the job's lease is held (it is running) or a scheduled request for it is
 * still queued or being handled (singleton key `schedule:<job>`).
 */
export function queueDispatcher(runtime: Runtime, queue: Queue): FireDispatcher {
  return async ({ job, fireAt }) => {
    const request = await checkRunRequest(runtime, { job, requestedBy: SCHEDULER_REQUESTER });
    if (await runtime.leases.isHeld(request.leaseKey)) return "skipped-running";
    // A fire dispatched before its time (pg-boss mode adds the jitter here) waits in the queue.
    const delayMs = fireAt.getTime() - runtime.clock.now().getTime();
    const queued = await sendRunRequest(runtime, queue, request, {
      singletonKey: `schedule:${job.name}`,
      startAfterSeconds: delayMs > 0 ? Math.ceil(delayMs / 1000) : undefined,
    });
    return queued === null ? "skipped-queued" : "queued";
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
