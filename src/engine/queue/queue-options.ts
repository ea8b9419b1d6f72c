import type { SendOptions, WorkOptions } from "./queue.ts";

/** Send defaults, as documented on SendOptions. */
export const DEFAULT_SEND_OPTIONS = {
  startAfterSeconds: 0,
  retryLimit: 3,
  retryDelaySeconds: 5,
  retryBackoff: true,
  visibilityTimeoutSeconds: 300,
} as const;

/** Default grace period of Queue.stop(). */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/** Backoff never waits longer than this between two attempts. */
export const MAX_RETRY_DELAY_MS = 24 * 60 * 60 * 1000;

/** SendOptions with defaults applied and checked, in milliseconds. */
export interface ResolvedSendOptions {
  startAfterMs: number;
  singletonKey: string | null;
  retryLimit: number;
  retryDelayMs: number;
  retryBackoff: boolean;
  visibilityMs: number;
}

function check(ok: boolean, what: string, value: unknown): void {
  if (!ok) throw new RangeError(`queue option ${what}: invalid value ${JSON.stringify(value)}`);
}

let resolvedDefaults: ResolvedSendOptions | undefined;

/** Applies defaults and refuses nonsense (negative delays, fractional retry limits, …). */
export function resolveSendOptions(options?: SendOptions): ResolvedSendOptions {
  // No options is the common case of a big batch: resolve the defaults once.
  if (options === undefined) {
    resolvedDefaults ??= resolveUncached({});
    return resolvedDefaults;
  }
  return resolveUncached(options);
}

function resolveUncached(options: SendOptions): ResolvedSendOptions {
  const d = DEFAULT_SEND_OPTIONS;
  const startAfter = options.startAfterSeconds ?? d.startAfterSeconds;
  const retryLimit = options.retryLimit ?? d.retryLimit;
  const retryDelay = options.retryDelaySeconds ?? d.retryDelaySeconds;
  const visibility = options.visibilityTimeoutSeconds ?? d.visibilityTimeoutSeconds;
  const key = options.singletonKey;
  check(Number.isFinite(startAfter) && startAfter >= 0, "startAfterSeconds", startAfter);
  check(Number.isInteger(retryLimit) && retryLimit >= 0, "retryLimit", retryLimit);
  check(Number.isFinite(retryDelay) && retryDelay >= 0, "retryDelaySeconds", retryDelay);
  check(
    Number.isFinite(visibility) && visibility >= 1,
    "visibilityTimeoutSeconds (at least 1)",
    visibility,
  );
  check(key === undefined || (typeof key === "string" && key.length > 0), "singletonKey", key);
  return Object.freeze({
    startAfterMs: Math.round(startAfter * 1000),
    singletonKey: key ?? null,
    retryLimit,
    retryDelayMs: Math.round(retryDelay * 1000),
    retryBackoff: options.retryBackoff ?? d.retryBackoff,
    visibilityMs: Math.round(visibility * 1000),
  });
}

/**
 * Wait before the next attempt after `attempt` failed: the delay, doubled per earlier retry
 * when backing off (attempt 1 → delay, 2 → 2×delay, 3 → 4×delay …), capped at one day.
 */
export function retryDelayAfter(
  attempt: number,
  retry: { delayMs: number; backoff: boolean },
): number {
  if (!retry.backoff) return retry.delayMs;
  return Math.min(MAX_RETRY_DELAY_MS, retry.delayMs * 2 ** Math.min(30, attempt - 1));
}

/** WorkOptions with defaults applied and checked. */
export function resolveWorkOptions(options: WorkOptions = {}): Required<WorkOptions> {
  const concurrency = options.concurrency ?? 1;
  const batchSize = options.batchSize ?? concurrency;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  check(Number.isInteger(concurrency) && concurrency >= 1, "concurrency", concurrency);
  check(Number.isInteger(batchSize) && batchSize >= 1, "batchSize", batchSize);
  check(
    Number.isFinite(pollIntervalMs) && pollIntervalMs >= 10,
    "pollIntervalMs (at least 10)",
    pollIntervalMs,
  );
  const keepRunningWhenHoldLost = options.keepRunningWhenHoldLost ?? false;
  return { concurrency, batchSize, pollIntervalMs, keepRunningWhenHoldLost };
}
