import type { JobRecord } from "../../engine/jobs/job-repo.ts";
import { nextOccurrence } from "../../engine/jobs/schedule.ts";
import type { RunRecord } from "../../engine/runs/run-repo.ts";
import type { JobOut, RunOut } from "../schemas.ts";

/** A job as the API shows it, with its next cron occurrence when enabled and scheduled. */
export function jobView(job: JobRecord, now: Date): JobOut {
  const next =
    job.enabled && job.schedule !== null
      ? nextOccurrence(job.schedule, job.timezone, now)
      : undefined;
  return {
    name: job.name,
    type: job.type,
    params: job.params,
    schedule: job.schedule,
    timezone: job.timezone,
    enabled: job.enabled,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    nextOccurrenceAt: next?.toISOString() ?? null,
  };
}

/** A run as the API shows it (the RunRecord shape of `runs show --json`). */
export function runView(run: RunRecord): RunOut {
  return { ...run };
}
