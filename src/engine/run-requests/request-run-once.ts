import { isoTimestamp, truncateToSeconds } from "../clock/clock.ts";
import { ExitCode, TidemarkError, UsageError } from "../errors.ts";
import type { Queue } from "../queue/queue.ts";
import { newRunId } from "../runs/run-id.ts";
import { IdempotencyKeyRepo } from "./idempotency-key-repo.ts";
import type { QueuedRun } from "./queued-run.ts";
import {
  type CheckedRunRequest,
  checkRunRequest,
  type RunRequestInput,
  type RunRequestRuntime,
  sendRunRequest,
} from "./request-run.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/** How long a key is remembered: a retry after that queues a new run. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** A key whose request never got queued (its process died meanwhile) is free again after this. */
const STALE_CLAIM_MS = 60 * 1000;
/** Printable ASCII, 1–255 characters (what the header may carry). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The key was first used for another job or other options: 422 over HTTP. */
export class IdempotencyKeyReusedError extends TidemarkError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** The key's first request is still being queued: 409 over HTTP; retry shortly. */
export class IdempotencyKeyInFlightError extends TidemarkError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** A queued run, and whether it was queued by an earlier request with the same key. */
export type QueuedOnce = QueuedRun & { replayed: boolean };

/**
 * `requestRun` made safe to retry: the first request with `key` queues a run; a later one with
 * the same key, job and options answers the same queued run (`replayed`), without queuing
 * another, for 24 hours. The same key with another job or options is IdempotencyKeyReusedError;
 * while the first request is still being queued, IdempotencyKeyInFlightError.
 */
export async function requestRunOnce(
  runtime: RunRequestRuntime,
  queue: Queue,
  request: RunRequestInput,
  key: string,
): Promise<QueuedOnce> {
  if (!KEY_PATTERN.test(key)) {
    throw new UsageError("Idempotency-Key: expected 1 to 255 printable ASCII characters");
  }
  const checked = await checkRunRequest(runtime, request);
  const keys = new IdempotencyKeyRepo(runtime.db);
  const now = runtime.clock.now();
  await keys.expire(isoTimestamp(new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)));
  const claim = {
    key,
    fingerprint: JSON.stringify([checked.job.name, checked.dryRun, checked.limit]),
    runId: newRunId(checked.runIdPrefix, truncateToSeconds(now)),
    createdAt: isoTimestamp(now),
  };
  if (!(await keys.claim(claim))) {
    const earlier = await replayOf(runtime, keys, claim);
    if (earlier) return { ...earlier, replayed: true };
  }
  return { ...(await sendClaimed(runtime, queue, checked, keys, claim)), replayed: false };
}

/**
 * The run queued by the key's first request; undefined when this request took the key over
 * from a first request that never got queued (so it queues the run itself).
 */
async function replayOf(
  runtime: RunRequestRuntime,
  keys: IdempotencyKeyRepo,
  claim: { key: string; fingerprint: string; runId: string; createdAt: string },
): Promise<QueuedRun | undefined> {
  const first = await keys.get(claim.key);
  // Expired and deleted between our claim and this read: claim it again.
  if (first === undefined) {
    if (await keys.claim(claim)) return undefined;
    throw new IdempotencyKeyInFlightError("Idempotency-Key: the key is being used; retry");
  }
  if (first.fingerprint !== claim.fingerprint) {
    throw new IdempotencyKeyReusedError(
      `Idempotency-Key: the key was first used for ${describe(first.fingerprint)}, not ${describe(claim.fingerprint)}`,
    );
  }
  const queued = await new RunRequestRepo(runtime.db).get(first.runId);
  if (queued) return queued;
  const age = Date.parse(claim.createdAt) - Date.parse(first.createdAt);
  const at = claim.createdAt;
  if (age >= STALE_CLAIM_MS && (await keys.takeOver(claim.key, first.runId, { ...claim, at }))) {
    return undefined;
  }
  throw new IdempotencyKeyInFlightError(
    "Idempotency-Key: the first request with this key is still being queued; retry",
  );
}

/** Sends the request under the claimed run id; a send that fails frees the key again. */
async function sendClaimed(
  runtime: RunRequestRuntime,
  queue: Queue,
  checked: CheckedRunRequest,
  keys: IdempotencyKeyRepo,
  claim: { key: string; runId: string },
): Promise<QueuedRun> {
  try {
    const queued = await sendRunRequest(runtime, queue, checked, { runId: claim.runId });
    if (queued === null) throw new Error(`run request for job ${checked.job.name} was not queued`);
    return queued;
  } catch (err) {
    await keys.release(claim.key, claim.runId).catch(() => undefined);
    throw err;
  }
}

/** `job j (dryRun true, limit 5)` from a fingerprint. */
function describe(fingerprint: string): string {
  const [job, dryRun, limit] = JSON.parse(fingerprint) as [string, boolean, number | null];
  return `job ${job} (dryRun ${dryRun}, limit ${limit ?? "none"})`;
}
