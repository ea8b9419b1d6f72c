import { AttemptTimeoutError } from "./call-abort.ts";

/** A per-attempt abort signal and how to tell a timeout from a caller abort. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** True when the timeout (not the caller) aborted the attempt. */
  timedOut(): boolean;
  /** Detaches from the caller's signal and stops the timer; call when the attempt is over. */
  dispose(): void;
}

/** Per-attempt signal: the caller's signal or a timeout, whichever fires first. */
export function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number): AttemptSignal {
  // One controller and a plain timer: AbortSignal.timeout costs a signal, a timer and weak
  // bookkeeping per attempt, and a run makes one attempt per target. Linked by hand rather
  // than with AbortSignal.any, which leaks when one input is long-lived (nodejs/node#55351).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new AttemptTimeoutError());
  }, timeoutMs);
  // Like AbortSignal.timeout: a pending attempt's timer does not keep the process alive.
  timer.unref();
  if (!caller) {
    return {
      signal: controller.signal,
      timedOut: () => timedOut,
      dispose: () => clearTimeout(timer),
    };
  }
  const onCaller = (): void => controller.abort(caller.reason);
  if (caller.aborted) onCaller();
  else caller.addEventListener("abort", onCaller, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut && !caller.aborted,
    dispose: () => {
      clearTimeout(timer);
      caller.removeEventListener("abort", onCaller);
    },
  };
}
