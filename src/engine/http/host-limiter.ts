import PQueue from "p-queue";

/** Limits applied to one host. */
export interface HostLimitOptions {
  /** Sustained request starts per second (fractions allowed); unlimited when absent. */
  requestsPerSecond?: number;
  /** Requests allowed to start back to back before spacing applies (default 1). */
  burst?: number;
  /** Requests in flight at once; unlimited when absent. */
  concurrency?: number;
}

/** Client-wide limits: defaults for every host plus per-host overrides (`host:port` or hostname). */
export interface RateLimitOptions extends HostLimitOptions {
  perHost?: Readonly<Record<string, HostLimitOptions>>;
}

/** Rate and concurrency limit for one host, enforced by a p-queue. */
export class HostLimiter {
  readonly #queue: PQueue;

  constructor(options: HostLimitOptions = {}) {
    const { requestsPerSecond: rps, concurrency } = options;
    const burst = options.burst ?? 1;
    if (rps !== undefined && !(rps > 0 && Number.isFinite(rps))) {
      throw new RangeError(`requestsPerSecond must be a positive number, got ${rps}`);
    }
    if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
    }
    if (!(Number.isInteger(burst) && burst >= 1)) {
      throw new RangeError(`burst must be an integer >= 1, got ${burst}`);
    }
    this.#queue = new PQueue({
      concurrency: concurrency ?? Number.POSITIVE_INFINITY,
      // Strict (sliding window) mode: `burst` starts per `burst / rps` seconds in any window,
      // so with burst 1 requests are evenly spaced instead of bunched at window starts.
      ...(rps === undefined
        ? {}
        : { intervalCap: burst, interval: (burst * 1000) / rps, strict: true }),
    });
  }

  /** Runs `task` when a slot is free; a queued task is dropped when `signal` aborts. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#queue.add(() => task(), signal ? { signal } : {});
  }

  /** Tasks currently running. */
  get running(): number {
    return this.#queue.pending;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#queue.size;
  }
}

/** One HostLimiter per host, created on first use from the defaults and per-host overrides. */
export class HostLimiterPool {
  readonly #options: RateLimitOptions;
  readonly #limiters = new Map<string, HostLimiter>();

  constructor(options: RateLimitOptions = {}) {
    this.#options = options;
  }

  /** The limiter shared by every request to `url`'s host. */
  forUrl(url: URL): HostLimiter {
    let limiter = this.#limiters.get(url.host);
    if (!limiter) {
      const { perHost, ...defaults } = this.#options;
      const override = perHost?.[url.host] ?? perHost?.[url.hostname];
      limiter = new HostLimiter({ ...defaults, ...override });
      this.#limiters.set(url.host, limiter);
    }
    return limiter;
  }
}
