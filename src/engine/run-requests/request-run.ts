import { isoTimestamp, truncateToSeconds } from "../clock/clock.ts";
import type { JobRecord } from "../jobs/job-repo.ts";
import { JobService } from "../jobs/job-service.ts";
import { validateParams } from "../jobs/job-validation.ts";
import type { Queue, SendOptions } from "../queue/queue.ts";
import { sendTo } from "../registry/queue-handler-definition.ts";
import { newRunId } from "../runs/run-id.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { QueuedRun } from "./queued-run.ts";
import { RUN_QUEUE, type RunRequestPayload } from "./run-request.ts";
import { runRequestHandler } from "./run-request-handler.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/** What requesting a run needs from the runtime. */
export type RunRequestRuntime = Pick<Runtime, "db" | "registry" | "clock">;

/** A request to run a stored job. */
export interface RunRequestInput {
  /** The stored job, by name (unknown → NotFoundError) or as the caller already read it. */
  job: string | JobRecord;
  dryRun?: boolean;
  limit?: number | null;
  /** Who asks: `cliRequester()`, `API_REQUESTER`, `SCHEDULER_REQUESTER`. */
  requestedBy: string;
}

/** A run request checked against its stored job, ready to send. */
export interface CheckedRunRequest {
  readonly job: JobRecord;
  /** The lease the run will take: held means the job is running now. */
  readonly leaseKey: string;
  /** What its run id starts with: the job name, or the job type's `runIdPrefix`. */
  readonly runIdPrefix: string;
  readonly dryRun: boolean;
  readonly limit: number | null;
  readonly requestedBy: string;
}

/**
 * Checks a request once, at request time: the job exists and its stored params still
 * validate (else the worker could only dead-letter the message). Throws NotFoundError or
 * UsageError (exit 2).
 */
export async function checkRunRequest(
  runtime: RunRequestRuntime,
  request: RunRequestInput,
): Promise<CheckedRunRequest> {
  const job =
    typeof request.job === "string"
      ? await new JobService(runtime.db, runtime.registry, runtime.clock).get(request.job)
      : request.job;
  const params = validateParams(runtime.registry, job.name, job.type, job.params);
  const type = runtime.registry.jobType(job.type);
  const leaseKey = type.leaseKey?.(job.name, params) ?? `job:${job.name}`;
  return {
    job,
    leaseKey,
    runIdPrefix: type.runIdPrefix?.(job.name, params) ?? job.name,
    dryRun: request.dryRun ?? false,
    limit: request.limit ?? null,
    requestedBy: request.requestedBy,
  };
}

/**
 * The one sender of run requests: makes the run id the run will be recorded under
 * (`<job or runIdPrefix>_<request time>_<hex6>`), sends the message with `sendTo` (payload validated against
 * the `tidemark.run` handler's schema, its send defaults applied), and records the request in
 * `tm_run_requests` so `GET /api/runs/{run_id}` answers `queued` until a worker starts the
 * run. Returns null when `options.singletonKey` dropped a duplicate. `options.runId`: the id
 * to promise, made by the caller (see requestRunOnce).
 */
export async function sendRunRequest(
  runtime: RunRequestRuntime,
  queue: Queue,
  request: CheckedRunRequest,
  options: Pick<SendOptions, "singletonKey" | "startAfterSeconds"> & { runId?: string } = {},
): Promise<QueuedRun | null> {
  const now = runtime.clock.now();
  const { runId: given, ...sendOptions } = options;
  const runId = given ?? newRunId(request.runIdPrefix, truncateToSeconds(now));
  const payload: RunRequestPayload = {
    job: request.job.name,
    dryRun: request.dryRun,
    limit: request.limit,
    requestedBy: request.requestedBy,
    runId,
  };
  const messageId = await sendTo(queue, runRequestHandler, payload, sendOptions);
  if (messageId === null) return null;
  const queued: QueuedRun = {
    runId,
    jobName: request.job.name,
    queue: RUN_QUEUE,
    messageId,
    requestedBy: request.requestedBy,
    requestedAt: isoTimestamp(now),
    dryRun: request.dryRun,
    limit: request.limit,
  };
  await new RunRequestRepo(runtime.db).insert(queued);
  return queued;
}

/** Checks and sends a run request (the CLI's `--queue` and the HTTP API). */
export async function requestRun(
  runtime: RunRequestRuntime,
  queue: Queue,
  request: RunRequestInput,
): Promise<QueuedRun> {
  const checked = await checkRunRequest(runtime, request);
  const queued = await sendRunRequest(runtime, queue, checked);
  // Without a singleton key a send is never dropped.
  if (queued === null) throw new Error(`run request for job ${checked.job.name} was not queued`);
  return queued;
}
