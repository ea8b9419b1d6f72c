import type { Logger } from "../../infra/logging/logger.ts";
import type { LeaseStore } from "./lease-store.ts";

/** Default lease length; a dead process's lease is taken over after this. */
export const DEFAULT_LEASE_TTL_MS = 60_000;

/**
 * Renews a lease every ttl/3 until stopped. If a renewal finds the lease lost, `onLost`
 * fires (the runner aborts the run) so two holders never work on one key knowingly.
 */
export function startHeartbeat(options: {
  leases: LeaseStore;
  key: string;
  holder: string;
  ttlMs: number;
  logger: Logger;
  onLost: () => void;
}): { stop(): void } {
  const { leases, key, holder, ttlMs, logger, onLost } = options;
  let stopped = false;
  const timer = setInterval(
    () => {
      leases.renew(key, holder, ttlMs).then(
        (ok) => {
          if (!ok && !stopped) {
            stopped = true;
            clearInterval(timer);
            logger.error({ lease: key, holder }, "lease lost; aborting");
            onLost();
          }
        },
        (err: unknown) => logger.warn({ err, lease: key }, "lease renewal failed; will retry"),
      );
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
