import { LEASE_EXPIRED_ERROR, type RunRecord } from "../../engine/runs/run-repo.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";

/**
 * The run as it stands now, without writing: a `running` run whose lease is gone, held by
 * someone else or expired is shown `abandoned` (finished when its lease expired, when known),
 * as RunRepo.markAbandoned would record it. The processes that own runs (the runner, the
 * `serve`/`worker` sweep) record it; a read never does.
 */
export async function runAsOfNow(
  runtime: Pick<Runtime, "leases" | "clock">,
  run: RunRecord,
): Promise<RunRecord> {
  if (run.status !== "running") return run;
  const lease = await runtime.leases.get(run.leaseKey);
  const ours = lease !== undefined && lease.holder === run.runId;
  if (ours && new Date(lease.expires_at) > runtime.clock.now()) return run;
  return {
    ...run,
    status: "abandoned",
    finishedAt: ours ? lease.expires_at : null,
    error: LEASE_EXPIRED_ERROR,
  };
}
