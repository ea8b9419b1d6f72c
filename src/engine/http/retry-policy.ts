/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Tuning of retries; every field has a default. */
export interface RetryPolicyOptions {
  /** Total attempts including the first (default 4; 1 disables retries). */
  maxAttempts?: number;
  /** Upper bound of the first backoff (default 500 ms). */
  baseDelayMs?: number;
  /** Growth of the upper bound per attempt (default 2). */
  factor?: number;
  /** Cap of the backoff upper bound (default 30 s). */
  maxDelayMs?: number;
  /** Cap of a server-requested `Retry-After` wait (default 120 s). */
  maxRetryAfterMs?: number;
  /** Uniform number in [0, 1); injectable for deterministic tests. */
  random?: () => number;
  /** Injectable so tests need no real waiting. */
  sleep?: SleepFn;
  /** Current time in ms, for `Retry-After` given as an HTTP date. */
  now?: () => number;
}

/** Statuses whose `Retry-After` header is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Real, abortable sleep (timer cleared on abort so nothing keeps the process alive). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Parses `Retry-After` (delta seconds or HTTP date) into a non-negative wait in ms. */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Date.parse accepts a bare "-5" as a year; a signed number is just invalid here.
  if (/^[-+]\d/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Exponential backoff with full jitter, honouring `Retry-After` on 429 and 503. */
export class RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly #random: () => number;
  readonly #sleep: SleepFn;
  readonly #now: () => number;

  constructor(options: RetryPolicyOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 4;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.factor = options.factor ?? 2;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) {
      throw new RangeError(`maxAttempts must be an integer >= 1, got ${this.maxAttempts}`);
    }
    for (const [name, v] of [
      ["baseDelayMs", this.baseDelayMs],
      ["maxDelayMs", this.maxDelayMs],
      ["maxRetryAfterMs", this.maxRetryAfterMs],
    ] as const) {
      if (!(v >= 0)) throw new RangeError(`${name} must be >= 0, got ${v}`);
    }
    if (!(this.factor >= 1)) throw new RangeError(`factor must be >= 1, got ${this.factor}`);
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#now = options.now ?? Date.now;
  }

  /** Jittered backoff after the given failed attempt (1-based): uniform in [0, cap). */
  backoffMs(attempt: number): number {
    const cap = Math.min(this.maxDelayMs, this.baseDelayMs * this.factor ** (attempt - 1));
    // Full jitter spreads clients that failed together, so they do not retry together.
    return Math.floor(this.#random() * cap);
  }

  /** The server-requested wait, when the status honours `Retry-After` and the header parses. */
  retryAfterMs(status: number | undefined, headers: Headers | undefined): number | undefined {
    if (status === undefined || headers === undefined || !RETRY_AFTER_STATUSES.has(status)) {
      return undefined;
    }
    const wait = parseRetryAfter(headers.get("retry-after"), this.#now());
    return wait === undefined ? undefined : Math.min(wait, this.maxRetryAfterMs);
  }

  /** Delay before the next attempt: `Retry-After` when given, else jittered backoff. */
  delayMs(attempt: number, response?: { status: number; headers: Headers }): number {
    return this.retryAfterMs(response?.status, response?.headers) ?? this.backoffMs(attempt);
  }

  /** Sleeps through the injected sleep function. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#sleep(ms, signal);
  }
}
