import type { Runtime } from "../runtime/runtime.ts";
import { LEASE_EXPIRED_ERROR, type RunFilter, type RunRecord, RunRepo } from "./run-repo.ts";

/**
 * The run as it stands now, without writing: a `running` run whose lease is gone, held by
 * someone else or expired is shown `abandoned` (finished when its lease expired, when known),
 * as RunRepo.markAbandoned would record it. The processes that own runs (the runner, the
 * `serve`/`worker` sweep, `tidemark db gc`) record it; a read never does.
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

/** Newest first, as RunRepo.list orders them. */
function newestFirst(a: RunRecord, b: RunRecord): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? 1 : -1;
  return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
}

/** Runs matching the filter as they stand now (runAsOfNow), newest first; writes nothing. */
export async function listRunsAsOfNow(
  runtime: Pick<Runtime, "db" | "leases" | "clock">,
  filter: RunFilter,
): Promise<RunRecord[]> {
  const repo = new RunRepo(runtime.db);
  // Runs still recorded `running` may be abandoned by now: fetch them with the abandoned ones.
  const fetched =
    filter.status === "abandoned"
      ? [...(await repo.list(filter)), ...(await repo.list({ ...filter, status: "running" }))]
      : await repo.list(filter);
  const now = await Promise.all(fetched.map((run) => runAsOfNow(runtime, run)));
  return now
    .filter((run) => filter.status === undefined || run.status === filter.status)
    .sort(newestFirst)
    .slice(0, filter.limit);
}
