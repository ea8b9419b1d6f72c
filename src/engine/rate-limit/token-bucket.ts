/** A token bucket's shape: sustained rate and how many tokens it holds at most. */
export interface TokenBucketLimit {
  /** Tokens added per second (fractions allowed). */
  ratePerSecond: number;
  /** Capacity: requests that may start back to back after a quiet spell (integer >= 1). */
  burst: number;
}

/** A bucket's state: tokens left at a time (ms since the epoch). */
export interface BucketState {
  tokens: number;
  atMs: number;
}

/** What taking a token decided. */
export interface TakeResult {
  granted: boolean;
  /** The state to store (when granted). */
  state: BucketState;
  /** When not granted: how long until a token is due. 0 when granted. */
  waitMs: number;
}

/** Throws RangeError unless the limit is usable. */
export function checkLimit(limit: TokenBucketLimit): void {
  const { ratePerSecond: rate, burst } = limit;
  if (!(rate > 0 && Number.isFinite(rate))) {
    throw new RangeError(`ratePerSecond must be a positive number, got ${rate}`);
  }
  if (!(Number.isInteger(burst) && burst >= 1)) {
    throw new RangeError(`burst must be an integer >= 1, got ${burst}`);
  }
}

/**
 * Refills the bucket up to `nowMs` and takes one token if there is one. Time never runs
 * backwards: a caller whose clock is behind the stored state gets no refill until its clock
 * catches up, so clock skew between hosts can slow the shared rate but never exceed it.
 */
export function takeToken(
  stored: BucketState | undefined,
  nowMs: number,
  limit: TokenBucketLimit,
): TakeResult {
  const { granted, state, waitMs } = takeTokens(stored, nowMs, limit, 1);
  return { granted, state, waitMs };
}

/** What taking up to several tokens decided: `count` tokens taken (0 when not granted). */
export interface TakeManyResult extends TakeResult {
  count: number;
}

/**
 * Like takeToken, but takes up to `most` whole tokens when at least one is there: never more
 * than the bucket holds at `nowMs`, so a lease of several tokens spends nothing in advance.
 */
export function takeTokens(
  stored: BucketState | undefined,
  nowMs: number,
  limit: TokenBucketLimit,
  most: number,
): TakeManyResult {
  const { ratePerSecond: rate, burst } = limit;
  const before = stored ?? { tokens: burst, atMs: nowMs };
  const atMs = Math.max(nowMs, before.atMs);
  const tokens = Math.min(burst, before.tokens + ((atMs - before.atMs) * rate) / 1000);
  if (tokens >= 1) {
    const count = Math.max(1, Math.min(Math.floor(most), Math.floor(tokens)));
    const state = { tokens: tokens - count, atMs };
    return { granted: true, state, waitMs: 0, count };
  }
  // At least 1 ms, and counted from the stored time, which may be ahead of this clock.
  const waitMs = Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate) + (atMs - nowMs));
  return { granted: false, state: { tokens, atMs }, waitMs, count: 0 };
}
