import type { TokenBucketLimit } from "./token-bucket.ts";

/** The spare tokens of a lease are spent within this long or dropped. */
export const LEASE_WINDOW_MS = 50;

/**
 * Tokens one transaction takes at most: the rate's worth of LEASE_WINDOW_MS, at least one. Below
 * 40/s that is one token, so slow limits (1/s, 10/s) behave exactly as a plain token bucket.
 */
export function leaseSize(ratePerSecond: number): number {
  return Math.max(1, Math.floor((ratePerSecond * LEASE_WINDOW_MS) / 1000));
}

/**
 * The spare tokens of one lease, held in memory for this process's other callers of the key.
 *
 * Spare tokens were already taken from the shared bucket, so spending them late could add to
 * a burst that the bucket, having refilled meanwhile, also allows others. Two rules keep the
 * guarantee exact. A spare token is usable only within the window (max(LEASE_WINDOW_MS, 1/rate),
 * i.e. 50 ms whenever there are spares at all: they exist from 40/s up). And spares are dropped
 * as the bucket refills: at `elapsed` ms after the lease, at most
 * `burst - leftInBucket - rate × elapsed` may remain, so the tokens in the bucket plus those held
 * in memory never exceed the burst. Other processes only lower the bucket further, so every
 * process's grants together still fit in `burst + rate × elapsed`. Dropped tokens are wasted,
 * never returned: leasing can only lower the combined rate.
 */
export class TokenLease {
  #spare: number;
  readonly #leftInBucket: number;
  readonly #takenAtMs: number;
  readonly #limit: TokenBucketLimit;

  /** `spare` tokens beyond the one granted; `leftInBucket`: the bucket's tokens after the take. */
  constructor(spare: number, leftInBucket: number, takenAtMs: number, limit: TokenBucketLimit) {
    this.#spare = spare;
    this.#leftInBucket = leftInBucket;
    this.#takenAtMs = takenAtMs;
    this.#limit = limit;
  }

  /** Spare tokens still usable at `nowMs` (after dropping the ones past their validity). */
  usable(nowMs: number): number {
    const { ratePerSecond: rate, burst } = this.#limit;
    const elapsed = nowMs - this.#takenAtMs;
    // A clock that went backwards says nothing about the time passed: drop, to be safe.
    if (elapsed < 0 || elapsed >= Math.max(LEASE_WINDOW_MS, 1000 / rate)) {
      this.#spare = 0;
    } else {
      const headroom = burst - this.#leftInBucket - (rate * elapsed) / 1000;
      this.#spare = Math.max(0, Math.min(this.#spare, Math.floor(headroom)));
    }
    return this.#spare;
  }

  /** Spends one spare token if one is usable at `nowMs`. */
  take(nowMs: number): boolean {
    if (this.usable(nowMs) < 1) return false;
    this.#spare -= 1;
    return true;
  }
}
