import { AlreadyRunningError, DuplicateDeliveryError, TidemarkError } from "../errors.ts";
import { PermanentQueueError } from "../queue/queue-errors.ts";
import { runAfterRunHook } from "./crash-hook.ts";
import { defineEngineQueueHandler } from "./engine-queue-handler.ts";
import {
  RUN_QUEUE,
  RUN_SEND_DEFAULTS,
  runRequestPayload,
  SCHEDULER_REQUESTER,
} from "./run-request.ts";

/**
 * Consumes `tidemark.run`: runs the stored job as `tidemark run` would, under the run id
 * promised at request time, at most once per request: a redelivered request whose run exists
 * is acknowledged without running again (unless a worker's stop interrupted that run). A run that fails is recorded as failed and the message completes
 * (retrying a failed job is not the queue's call); a job that is already running is retried
 * later with backoff — except a scheduled fire, which is skipped since the next occurrence
 * comes anyway; an unknown job or bad params are dead-lettered at once. A stop past the grace
 * period aborts the run (recorded as failed) and releases the message, so another worker
 * runs it again.
 */
export const runRequestHandler = defineEngineQueueHandler({
  name: RUN_QUEUE,
  description: "runs a stored job (tidemark run --queue, the HTTP API, the scheduler)",
  payload: runRequestPayload,
  // The run's lease keeps it exclusive and its commits fenced: a healthy run whose message
  // hold lapsed (an event loop stalled past the visibility timeout) finishes its work, while
  // the redelivery finds its run going and is acknowledged without running it again.
  work: { concurrency: 1, pollIntervalMs: 1_000, keepRunningWhenHoldLost: true },
  send: RUN_SEND_DEFAULTS,
  async handle(ctx, payload) {
    const [{ runStoredJob }, { alreadyHandled }] = await Promise.all([
      import("../runs/run-stored-job.ts"),
      import("./exactly-once.ts"),
    ]);
    // Delivery is at least once; execution is exactly once, keyed by the promised run id.
    const verdict = payload.runId
      ? await alreadyHandled(ctx.runtime, payload.runId, ctx.logger)
      : "first";
    if (verdict === "handled") return;
    try {
      const report = await runStoredJob(ctx.runtime, payload.job, {
        dryRun: payload.dryRun,
        limit: payload.limit ?? undefined,
        signal: ctx.signal,
        runId: payload.runId,
        // A first delivery runs under its promised id or not at all (a racing duplicate won).
        exactRunId: verdict === "first",
      });
      runAfterRunHook();
      if (ctx.signal.aborted && payload.runId) {
        // Interrupted by this worker's stop: the message is released, and its redelivery may
        // run the job again (under a fresh id).
        const { noteInterrupted } = await import("./exactly-once.ts");
        await noteInterrupted(ctx.runtime, payload.runId);
      }
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
      if (err instanceof DuplicateDeliveryError) {
        ctx.logger.warn(
          { job: payload.job, run_id: payload.runId },
          "duplicate delivery of a request another worker is starting: acknowledged, not run",
        );
        return;
      }
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
