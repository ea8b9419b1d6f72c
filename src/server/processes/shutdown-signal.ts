/**
 * Resolves with the first SIGTERM or SIGINT. A second one while shutting down calls
 * `onForce` (the caller aborts what is left instead of waiting out the grace period).
 */
export function waitForShutdownSignal(onForce: () => void): {
  signal: Promise<NodeJS.Signals>;
  dispose(): void;
} {
  let received = false;
  let resolveSignal: (sig: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    resolveSignal = resolve;
  });
  const onSignal = (sig: NodeJS.Signals) => {
    if (received) return onForce();
    received = true;
    resolveSignal(sig);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return {
    signal,
    dispose() {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
