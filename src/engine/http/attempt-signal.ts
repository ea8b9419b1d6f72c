/** A per-attempt abort signal and how to tell a timeout from a caller abort. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** True when the timeout (not the caller) aborted the attempt. */
  timedOut(): boolean;
  /** Detaches from the caller's signal; call when the attempt is over. */
  dispose(): void;
}

/** Per-attempt signal: the caller's signal or an AbortSignal.timeout, whichever fires first. */
export function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number): AttemptSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  if (!caller) return { signal: timeout, timedOut: () => timeout.aborted, dispose: () => {} };
  // Linked by hand rather than with AbortSignal.any, which leaks when one input is long-lived
  // (nodejs/node#55351) — and a run's signal lives for the whole run.
  const controller = new AbortController();
  const onCaller = (): void => controller.abort(caller.reason);
  const onTimeout = (): void => controller.abort(timeout.reason);
  if (caller.aborted) onCaller();
  caller.addEventListener("abort", onCaller, { once: true });
  timeout.addEventListener("abort", onTimeout, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timeout.aborted && !caller.aborted,
    dispose: () => {
      caller.removeEventListener("abort", onCaller);
      timeout.removeEventListener("abort", onTimeout);
    },
  };
}
