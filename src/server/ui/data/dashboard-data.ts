import { isoTimestamp } from "../../../engine/clock/clock.ts";
import type { EngineTables, RunStatus } from "../../../engine/engine-tables.ts";
import { type JobOverview, listJobOverviews } from "../../../engine/runs/job-overview.ts";
import { runAsOfNow } from "../../../engine/runs/run-liveness.ts";
import { type RunFilter, type RunRecord, RunRepo } from "../../../engine/runs/run-repo.ts";
import { collectQueueHandlers } from "../../../engine/workers/queue-workers.ts";
import { typed } from "../../../infra/db/open-database.ts";
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

/** Runs started in the last `hours` hours, counted by status. */
export async function runsSince(
  services: ServerServices,
  hours: number,
): Promise<Record<string, number>> {
  const { runtime } = services;
  const since = isoTimestamp(new Date(runtime.clock.now().getTime() - hours * 3600 * 1000));
  const rows = await typed<EngineTables>(runtime.db)
    .selectFrom("tm_runs")
    .select(["status", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("started_at", ">=", since)
    .groupBy("status")
    .execute();
  const counts: Record<string, number> = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0]));
  for (const r of rows) counts[r.status] = Number(r.n);
  // A `running` row whose process died is abandoned, as the runs list (the counts' links) says.
  const running = await new RunRepo(runtime.db).list({ status: "running", limit: 1000 });
  for (const run of running) {
    if (run.startedAt < since) continue;
    const now = await runAsOfNow(runtime, run);
    if (now.status !== "running") {
      counts.running = (counts.running ?? 0) - 1;
      counts[now.status] = (counts[now.status] ?? 0) + 1;
    }
  }
  return counts;
}

/** Runs started in the last 24 hours, counted by status. */
export function runsLast24h(services: ServerServices): Promise<Record<string, number>> {
  return runsSince(services, 24);
}

/**
 * Every job name the runs filter offers: the stored jobs and the names runs were recorded under
 * (ad-hoc runs such as `snapshots run`, jobs removed since), sorted.
 */
export async function runJobNames(services: ServerServices): Promise<string[]> {
  const db = typed<EngineTables>(services.runtime.db);
  const [jobs, ran] = await Promise.all([
    db.selectFrom("tm_jobs").select("name").execute(),
    db.selectFrom("tm_runs").select("job_name").distinct().execute(),
  ]);
  const names = new Set([...jobs.map((j) => j.name), ...ran.map((r) => r.job_name)]);
  return [...names].sort((a, b) => a.localeCompare(b));
}

/**
 * One page of runs, newest first, as they stand now (a dead `running` run shows `abandoned`),
 * optionally only those started at or after `since` (ISO).
 */
export async function runsPage(
  services: ServerServices,
  filter: {
    jobName?: string | undefined;
    status?: RunStatus | undefined;
    since?: string | undefined;
  },
  page: number,
  pageSize: number,
): Promise<{ runs: RunRecord[]; more: boolean }> {
  const { runtime } = services;
  const repo = new RunRepo(runtime.db);
  const base = { jobName: filter.jobName, status: filter.status, since: filter.since };
  if (filter.status !== "running" && filter.status !== "abandoned") {
    // Which runs match does not depend on "as of now" here (only how they show): page in SQL,
    // so a deep page does not read every run before it.
    const rows = await repo.list({ ...base, offset: page * pageSize, limit: pageSize + 1 });
    const runs = await Promise.all(rows.slice(0, pageSize).map((r) => runAsOfNow(runtime, r)));
    return { runs, more: rows.length > pageSize };
  }
  const wanted = page * pageSize + pageSize + 1;
  const query: RunFilter = { ...base, limit: wanted };
  // A `running` row may be abandoned by now: fetch those with the abandoned ones.
  const fetched =
    filter.status === "abandoned"
      ? [...(await repo.list(query)), ...(await repo.list({ ...query, status: "running" }))]
      : await repo.list(query);
  const now = await Promise.all(fetched.map((r) => runAsOfNow(runtime, r)));
  const matching = now
    .filter((r) => filter.status === undefined || r.status === filter.status)
    // Newest first, so the runs since a time are the first ones: paging stays exact.
    .filter((r) => filter.since === undefined || r.startedAt >= filter.since)
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
