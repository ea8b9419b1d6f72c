/**
 * A hook the worker calls right after a queued run ends, before the message is acknowledged:
 * none in production. The exactly-once tests' CLI process installs one that SIGKILLs itself
 * there, so a redelivery finds the run done; nothing in a shipped process reads the environment
 * for it.
 */
let afterRun: (() => void) | undefined;

/** Installs (or, with undefined, removes) the hook; only test processes call it. */
export function setAfterRunHook(hook: (() => void) | undefined): void {
  afterRun = hook;
}

/** Runs the installed hook, if any. */
export function runAfterRunHook(): void {
  afterRun?.();
}
