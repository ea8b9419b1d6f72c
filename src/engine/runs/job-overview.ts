import type { Database } from "../../infra/db/open-database.ts";
import { type JobRecord, JobRepo } from "../jobs/job-repo.ts";
import { nextOccurrence } from "../jobs/schedule.ts";
import { type RunRecord, RunRepo } from "./run-repo.ts";

/** A job with what a user asks about it first: when it fires next and how its last run went. */
export interface JobOverview {
  job: JobRecord;
  /** Next cron occurrence (before jitter), ISO-8601; null when disabled or unscheduled. */
  nextOccurrenceAt: string | null;
  /** The job's latest run (any status), or null when it never ran. */
  lastRun: RunRecord | null;
}

/** The job's next cron occurrence after `now` (before jitter); null when disabled or unscheduled. */
export function nextOccurrenceOf(job: JobRecord, now: Date): string | null {
  if (!job.enabled || job.schedule === null) return null;
  return nextOccurrence(job.schedule, job.timezone, now)?.toISOString() ?? null;
}

/** The job's latest run, or null when it never ran. */
export async function latestRun(db: Database, jobName: string): Promise<RunRecord | null> {
  const [last] = await new RunRepo(db).list({ jobName, limit: 1 });
  return last ?? null;
}

/** Every job by name, each with its next occurrence and latest run. */
export async function listJobOverviews(db: Database, now: Date): Promise<JobOverview[]> {
  const jobs = await new JobRepo(db).list();
  return Promise.all(
    jobs.map(async (job) => ({
      job,
      nextOccurrenceAt: nextOccurrenceOf(job, now),
      lastRun: await latestRun(db, job.name),
    })),
  );
}
