import { isoTimestamp } from "../clock/clock.ts";
import { AlreadyRunningError, describeError } from "../errors.ts";
import { JobRepo } from "../jobs/job-repo.ts";
import { isDue } from "../jobs/schedule.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { executeRun, type RunReport } from "./job-runner.ts";
import { RunRepo } from "./run-repo.ts";

/** What run-due did with one due job. */
export type DueOutcome =
  | { job: string; outcome: "ran"; report: RunReport }
  | { job: string; outcome: "already-running"; error: string }
  | { job: string; outcome: "error"; error: string };

/**
 * Runs, one after another, every enabled job whose cron schedule has an occurrence since its
 * last run started (or since it was created).
 */
export async function runDue(
  runtime: Runtime,
  options: { dryRun?: boolean; signal?: AbortSignal; progress?: boolean } = {},
): Promise<DueOutcome[]> {
  const jobs = await new JobRepo(runtime.db).list();
  const runs = new RunRepo(runtime.db, runtime.events);
  const now = runtime.clock.now();
  await runs.markAbandoned(isoTimestamp(now));
  const out: DueOutcome[] = [];
  for (const job of jobs) {
    if (!job.enabled || job.schedule === null) continue;
    if (options.signal?.aborted) break;
    const since = new Date((await runs.lastStartedAt(job.name)) ?? job.createdAt);
    if (!isDue(job.schedule, job.timezone, since, now)) continue;
    try {
      const report = await executeRun(runtime, {
        jobName: job.name,
        jobType: job.type,
        params: job.params,
        dryRun: options.dryRun,
        signal: options.signal,
        progress: options.progress,
      });
      out.push({ job: job.name, outcome: "ran", report });
    } catch (err) {
      const outcome = err instanceof AlreadyRunningError ? "already-running" : "error";
      out.push({ job: job.name, outcome, error: describeError(err) });
    }
  }
  return out;
}
