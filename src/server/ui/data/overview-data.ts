import type { EngineTables } from "../../../engine/engine-tables.ts";
import type { JobOverview } from "../../../engine/runs/job-overview.ts";
import { runAsOfNow } from "../../../engine/runs/run-liveness.ts";
import { type RunRecord, RunRepo } from "../../../engine/runs/run-repo.ts";
import { occurrenceAtOrBefore } from "../../../engine/scheduler/cron-math.ts";
import { typed } from "../../../infra/db/open-database.ts";
import { demoDisabledReason } from "../../../infra/demo/demo-folder.ts";
import type { ServerServices } from "../../server-services.ts";
import { overviewJobs } from "./dashboard-data.ts";
import { type ChildrenOfRun, childrenFailing, childrenOfRuns } from "./run-children-data.ts";

/** Cells in a job's strip of recent runs. */
export const STRIP_RUNS = 24;
/** A scheduled occurrence counts as missed once it is this late without a run. */
export const LATE_AFTER_MS = 2 * 60_000;

/** A job's row on the overview and its page's header. */
export interface JobHealth extends JobOverview {
  /** Its latest runs, newest first, as they stand now. */
  recent: RunRecord[];
  /** The queue messages its latest run sent, when it sent any. */
  children: ChildrenOfRun | undefined;
  /** The occurrence it missed (ISO), when a scheduled run is late. */
  lateSince: string | null;
  /** The latest error among its recent runs. */
  lastError: { runId: string; error: string; at: string } | null;
  /** No stored job has this name: runs started by a command (`rakuten run`, …) or a removed job. */
  adHoc: boolean;
  /** Why a disabled job is disabled, when Tidemark disabled it (a demo's scheduled jobs). */
  disabledReason: string | undefined;
}

/** Runs of names without a stored job are listed when one started within this many days. */
const AD_HOC_DAYS = 7;

/** Names that ran lately without a stored job, as rows with no schedule and no actions. */
async function adHocJobs(
  services: ServerServices,
  stored: ReadonlySet<string>,
): Promise<JobOverview[]> {
  const { runtime } = services;
  const since = new Date(runtime.clock.now().getTime() - AD_HOC_DAYS * 86_400_000).toISOString();
  const rows = await typed<EngineTables>(runtime.db)
    .selectFrom("tm_runs")
    .select([
      "job_name",
      (eb) => eb.fn.max("job_type").as("job_type"),
      (eb) => eb.fn.min("started_at").as("first"),
    ])
    .where("started_at", ">=", since)
    .groupBy("job_name")
    .execute();
  const repo = new RunRepo(runtime.db);
  return Promise.all(
    rows
      .filter((r) => !stored.has(r.job_name))
      .map(async (r) => ({
        job: {
          name: r.job_name,
          type: r.job_type,
          params: undefined,
          schedule: null,
          timezone: "UTC",
          enabled: false,
          createdAt: r.first,
          updatedAt: r.first,
        },
        nextOccurrenceAt: null,
        lastRun: (await repo.list({ jobName: r.job_name, limit: 1 }))[0] ?? null,
      })),
  );
}

/** Failing (its latest run failed, or that run's queued work fails), late, then the rest. */
export function isFailing(j: JobHealth): boolean {
  const s = j.lastRun?.status;
  return s === "failed" || s === "abandoned" || childrenFailing(j.children);
}

/** The occurrence of an enabled schedule that passed with no run started since, or null. */
export function missedOccurrence(j: JobOverview, now: Date): string | null {
  const { job } = j;
  if (!job.enabled || job.schedule === null) return null;
  const due = occurrenceAtOrBefore(
    job.schedule,
    job.timezone,
    new Date(now.getTime() - LATE_AFTER_MS),
  );
  if (!due || due.toISOString() < job.createdAt) return null;
  if (j.lastRun && Date.parse(j.lastRun.startedAt) >= due.getTime()) return null;
  return due.toISOString();
}

/**
 * Every stored job, and every name that ran lately without one, with its recent runs, children
 * and lateness: failing and late ones first, then stored jobs, then the ad-hoc names.
 */
export async function jobsHealth(services: ServerServices, only?: string): Promise<JobHealth[]> {
  const { runtime } = services;
  const now = runtime.clock.now();
  const repo = new RunRepo(runtime.db);
  const stored = await overviewJobs(services);
  const names = new Set(stored.map((j) => j.job.name));
  const jobs = [...stored, ...(await adHocJobs(services, names))].filter(
    (j) => only === undefined || j.job.name === only,
  );
  const lastIds = jobs.flatMap((j) => (j.lastRun ? [j.lastRun.runId] : []));
  const children = await childrenOfRuns(services, lastIds);
  const rows = await Promise.all(
    jobs.map(async (j): Promise<JobHealth> => {
      const latest = await repo.list({ jobName: j.job.name, limit: STRIP_RUNS });
      const recent = await Promise.all(latest.map((r) => runAsOfNow(runtime, r)));
      const failed = recent.find((r) => r.error);
      return {
        ...j,
        lastRun: recent[0] ?? null,
        adHoc: !names.has(j.job.name),
        disabledReason: names.has(j.job.name)
          ? demoDisabledReason(runtime.config.dataDir, j.job)
          : undefined,
        recent,
        children: j.lastRun ? children.get(j.lastRun.runId) : undefined,
        lateSince: missedOccurrence(j, now),
        lastError: failed?.error
          ? { runId: failed.runId, error: failed.error, at: failed.finishedAt ?? failed.startedAt }
          : null,
      };
    }),
  );
  const rank = (j: JobHealth) => (isFailing(j) ? 0 : j.lateSince ? 1 : j.adHoc ? 3 : 2);
  return rows.sort((a, b) => rank(a) - rank(b) || a.job.name.localeCompare(b.job.name));
}
