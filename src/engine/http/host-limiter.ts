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

/**
 * A concurrency cap alone (no request rate): a counter and a FIFO of waiters, with p-queue's
 * abort behaviour (a queued task is dropped, a running one's promise rejects at once) but
 * without its per-task bookkeeping, which a run pays once per target.
 */
class ConcurrencyGate {
  running = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get waiting(): number {
    return this.#waiters.length;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    // A released slot is handed straight to the first waiter (never counted free in between),
    // so a newcomer cannot slip past the cap.
    if (this.running >= this.limit) await this.#wait(signal);
    else this.running++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next();
      else this.running--;
    };
    try {
      signal?.throwIfAborted();
      if (!signal) return await task();
      return await abortable(task(), signal);
    } finally {
      release();
    }
  }

  #wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(go);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const go = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#waiters.push(go);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Rate and concurrency limit for one host: a p-queue when paced, a light gate otherwise. */
export class HostLimiter {
  readonly #queue: PQueue | undefined;
  readonly #gate: ConcurrencyGate | undefined;

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
    if (rps === undefined) {
      this.#gate = new ConcurrencyGate(concurrency ?? Number.POSITIVE_INFINITY);
      return;
    }
    this.#queue = new PQueue({
      concurrency: concurrency ?? Number.POSITIVE_INFINITY,
      // Strict (sliding window) mode: `burst` starts per `burst / rps` seconds in any window,
      // so with burst 1 requests are evenly spaced instead of bunched at window starts.
      intervalCap: burst,
      interval: (burst * 1000) / rps,
      strict: true,
    });
  }

  /** Runs `task` when a slot is free; a queued task is dropped when `signal` aborts. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#gate) return this.#gate.run(task, signal);
    return (this.#queue as PQueue).add(() => task(), signal ? { signal } : {});
  }

  /** Tasks currently running. */
  get running(): number {
    return this.#gate ? this.#gate.running : (this.#queue as PQueue).pending;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#gate ? this.#gate.waiting : (this.#queue as PQueue).size;
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
