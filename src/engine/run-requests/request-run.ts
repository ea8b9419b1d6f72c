import { isoTimestamp, truncateToSeconds } from "../../engine/context/clock.ts";
import type { JobRecord } from "../../engine/jobs/job-repo.ts";
import { validateParams } from "../../engine/jobs/job-validation.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import type { RunRequestPayload } from "../../engine/queue/run-queue.ts";
import { RUN_QUEUE, RUN_SEND_DEFAULTS } from "../../engine/queue/run-queue.ts";
import { newRunId } from "../../engine/runs/run-id.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import type { QueuedRun, RequestedRun, RunRequestOptions } from "../server-services.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/** Who API requests are made by (`requestedBy` in the payload, for logs). */
export const API_REQUESTER = "api";

/**
 * Queues a run of a stored job and returns the run id it will be recorded under. The id is
 * made here, at enqueue time (`<job>_<request time>_<hex6>`), travels in the message, and
 * the worker's run handler passes it to executeRun; `tm_run_requests` remembers it so
 * `GET /api/runs/{run_id}` answers `queued` until a worker starts the run.
 */
export async function requestRun(
  runtime: Runtime,
  queue: Queue,
  job: JobRecord,
  options: RunRequestOptions,
): Promise<QueuedRun> {
  // A stored job whose params no longer validate would only be dead-lettered: say so now.
  validateParams(runtime.registry, job.name, job.type, job.params);
  const now = runtime.clock.now();
  const runId = newRunId(job.name, truncateToSeconds(now));
  const dryRun = options.dryRun ?? false;
  const limit = options.limit ?? null;
  const payload: RunRequestPayload = {
    job: job.name,
    dryRun,
    limit,
    requestedBy: API_REQUESTER,
    runId,
  };
  const messageId = await queue.send(RUN_QUEUE, payload, RUN_SEND_DEFAULTS);
  // Without a singleton key a send is never dropped.
  if (messageId === null) throw new Error("run request was not queued");
  await new RunRequestRepo(runtime.db).insert({
    runId,
    jobName: job.name,
    queue: RUN_QUEUE,
    messageId,
    requestedBy: API_REQUESTER,
    requestedAt: isoTimestamp(now),
    dryRun,
    limit,
  });
  return { runId, messageId, jobName: job.name, dryRun, limit };
}

/**
 * A requested run that has no `tm_runs` row yet: `queued` while its message waits or is
 * being picked up, `dead` when the queue gave up on it. Undefined when unknown.
 */
export async function findRequestedRun(
  runtime: Runtime,
  queue: Queue | undefined,
  runId: string,
): Promise<RequestedRun | undefined> {
  const request = await new RunRequestRepo(runtime.db).get(runId);
  if (!request || !queue) return undefined;
  const message = await queue.getMessage(request.queue, request.messageId);
  if (!message || message.state === "completed") return undefined;
  return {
    runId,
    jobName: request.jobName,
    status: message.state === "dead" ? "dead" : "queued",
    messageId: request.messageId,
    requestedAt: request.requestedAt,
    dryRun: request.dryRun,
    limit: request.limit,
    attempts: message.attempts,
    error: message.lastError,
  };
}
