import { isoTimestamp } from "../../../engine/context/clock.ts";
import type { EngineTables, RunStatus } from "../../../engine/engine-tables.ts";
import { type JobOverview, listJobOverviews } from "../../../engine/runs/job-overview.ts";
import { type RunFilter, type RunRecord, RunRepo } from "../../../engine/runs/run-repo.ts";
import { collectQueueHandlers } from "../../../engine/workers/queue-workers.ts";
import { typed } from "../../../infra/db/open-database.ts";
import { runAsOfNow } from "../../routes/run-liveness.ts";
import type { ServerServices } from "../../server-services.ts";

/** Every run status, in the order the dashboard lists them. */
export const RUN_STATUSES: readonly RunStatus[] = [
  "running",
  "succeeded",
  "failed",
  "abandoned",
  "skipped",
];

/** Statuses that put a job at the top of the overview. */
const FAILING = new Set(["failed", "abandoned"]);

/** Jobs as the overview lists them: failing ones first, then by name. */
export async function overviewJobs(services: ServerServices): Promise<JobOverview[]> {
  const { runtime } = services;
  const jobs = await listJobOverviews(runtime.db, runtime.clock.now());
  const live = await Promise.all(
    jobs.map(async (j) => ({
      ...j,
      lastRun: j.lastRun ? await runAsOfNow(runtime, j.lastRun) : null,
    })),
  );
  const failing = (j: JobOverview) => (j.lastRun && FAILING.has(j.lastRun.status) ? 0 : 1);
  return live.sort((a, b) => failing(a) - failing(b) || a.job.name.localeCompare(b.job.name));
}

/** Runs started in the last 24 hours, counted by status. */
export async function runsLast24h(services: ServerServices): Promise<Record<string, number>> {
  const { runtime } = services;
  const since = isoTimestamp(new Date(runtime.clock.now().getTime() - 24 * 3600 * 1000));
  const rows = await typed<EngineTables>(runtime.db)
    .selectFrom("tm_runs")
    .select(["status", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("started_at", ">=", since)
    .groupBy("status")
    .execute();
  const counts: Record<string, number> = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0]));
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/** One page of runs, newest first, as they stand now (a dead `running` run shows `abandoned`). */
export async function runsPage(
  services: ServerServices,
  filter: { jobName?: string; status?: RunStatus },
  page: number,
  pageSize: number,
): Promise<{ runs: RunRecord[]; more: boolean }> {
  const { runtime } = services;
  const repo = new RunRepo(runtime.db);
  const wanted = page * pageSize + pageSize + 1;
  const query: RunFilter = { ...filter, limit: wanted };
  // A `running` row may be abandoned by now: fetch those with the abandoned ones.
  const fetched =
    filter.status === "abandoned"
      ? [...(await repo.list(query)), ...(await repo.list({ ...query, status: "running" }))]
      : await repo.list(query);
  const now = await Promise.all(fetched.map((r) => runAsOfNow(runtime, r)));
  const matching = now
    .filter((r) => filter.status === undefined || r.status === filter.status)
    .sort((a, b) =>
      a.startedAt === b.startedAt
        ? b.runId.localeCompare(a.runId)
        : b.startedAt.localeCompare(a.startedAt),
    );
  const start = page * pageSize;
  return {
    runs: matching.slice(start, start + pageSize),
    more: matching.length > start + pageSize,
  };
}

/** A run as it stands now, or undefined. */
export async function findRun(
  services: ServerServices,
  runId: string,
): Promise<RunRecord | undefined> {
  const run = await new RunRepo(services.runtime.db).get(runId);
  return run && runAsOfNow(services.runtime, run);
}

/** Every queue this build consumes (the engine's run queue first), for the queue page. */
export function knownQueues(services: ServerServices): string[] {
  return collectQueueHandlers(services.runtime.registry).map((h) => h.name);
}
