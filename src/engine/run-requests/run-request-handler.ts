import { AlreadyRunningError, TidemarkError } from "../errors.ts";
import { SCHEDULER_REQUESTER } from "../scheduler/dispatchers.ts";
import { PermanentQueueError } from "./queue-errors.ts";
import { defineQueueHandler } from "./queue-handler-definition.ts";
import { RUN_QUEUE, RUN_SEND_DEFAULTS, runRequestPayload } from "./run-queue.ts";

/**
 * Consumes `tidemark.run`: runs the stored job as `tidemark run` would. A run that fails is
 * recorded as failed and the message completes (retrying a failed job is not the queue's
 * call); a job that is already running is retried later with backoff — except a scheduled
 * fire, which is skipped since the next occurrence comes anyway; an unknown job or bad
 * params are dead-lettered at once. A stop past the grace period aborts the run (recorded
 * as failed) and releases the message, so another worker runs it again.
 */
export const runQueueHandler = defineQueueHandler({
  name: RUN_QUEUE,
  description: "runs a stored job (tidemark run --queue, the HTTP API, the scheduler)",
  payload: runRequestPayload,
  work: { concurrency: 1, pollIntervalMs: 1_000 },
  send: RUN_SEND_DEFAULTS,
  async handle(ctx, payload) {
    const { runStoredJob } = await import("../runs/run-stored-job.ts");
    try {
      const report = await runStoredJob(ctx.runtime, payload.job, {
        dryRun: payload.dryRun,
        limit: payload.limit ?? undefined,
        signal: ctx.signal,
        runId: payload.runId,
      });
      ctx.logger.info(
        {
          job: payload.job,
          run_id: report.runId,
          status: report.status,
          requested_by: payload.requestedBy,
        },
        "queued run finished",
      );
    } catch (err) {
      if (err instanceof AlreadyRunningError && payload.requestedBy === SCHEDULER_REQUESTER) {
        ctx.logger.warn({ job: payload.job }, "scheduled run skipped: the job is already running");
        return;
      }
      // Usage errors (exit 2: unknown job, invalid params) cannot succeed on a retry.
      if (
        err instanceof TidemarkError &&
        !(err instanceof AlreadyRunningError) &&
        err.exitCode === 2
      ) {
        throw new PermanentQueueError(err.message, { cause: err });
      }
      throw err;
    }
  },
});
