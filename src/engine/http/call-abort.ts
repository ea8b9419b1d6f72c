/** What a transport rejects with when an attempt's own time limit (not the caller) ends it. */
export class AttemptTimeoutError extends DOMException {
  constructor() {
    super("The operation was aborted due to timeout", "TimeoutError");
  }
}

/** True when `err` is an attempt's own timeout (AttemptTimeoutError). */
export function isAttemptTimeout(err: unknown): boolean {
  return err instanceof AttemptTimeoutError;
}

/**
 * Per caller signal: the calls it must abort. One listener per signal for all of its calls, so
 * a call costs a Set entry rather than an addEventListener/removeEventListener pair on the
 * signal (a run passes its one signal to 100,000 calls).
 */
const watched = new WeakMap<AbortSignal, Set<CallAbort>>();

function watch(signal: AbortSignal, call: CallAbort): void {
  let calls = watched.get(signal);
  if (calls === undefined) {
    const set = new Set<CallAbort>();
    calls = set;
    watched.set(signal, set);
    signal.addEventListener(
      "abort",
      () => {
        for (const c of [...set]) c.abort(signal.reason);
      },
      { once: true },
    );
  }
  calls.add(call);
}

/**
 * How one call is cut short: the caller's signal or the call's own time limit, whichever comes
 * first. Lighter than an AbortController linked to the caller (no signal, no listener pair per
 * call); the call registers what to tear down with `onAbort`.
 */
export class CallAbort {
  aborted = false;
  reason: unknown;
  #onAbort: ((reason: unknown) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor(signal: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#signal = signal;
    if (signal?.aborted) {
      this.aborted = true;
      this.reason = signal.reason;
      return;
    }
    if (signal !== undefined) watch(signal, this);
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => this.abort(new AttemptTimeoutError()), timeoutMs);
      // Like AbortSignal.timeout: a pending call's timer does not keep the process alive.
      this.#timer.unref();
    }
  }

  /** What to do on abort now (replaces the previous one); runs at once if already aborted. */
  onAbort(handler: ((reason: unknown) => void) | undefined): void {
    this.#onAbort = handler;
    if (this.aborted && handler !== undefined) handler(this.reason);
  }

  /** Ends the call with `reason` (the first reason wins). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.dispose();
    this.#onAbort?.(reason);
  }

  /** Stops the timer and forgets the caller's signal; call once the call is over. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#signal !== undefined) watched.get(this.#signal)?.delete(this);
  }
}
