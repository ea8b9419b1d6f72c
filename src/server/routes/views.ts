import type { JobRecord } from "../../engine/jobs/job-repo.ts";
import { nextOccurrenceOf } from "../../engine/runs/job-overview.ts";
import type { RunRecord } from "../../engine/runs/run-repo.ts";
import type { JobOut, RunOut } from "../schemas.ts";

/** A job as the API shows it, with its next cron occurrence when enabled and scheduled. */
export function jobView(job: JobRecord, now: Date): JobOut {
  return {
    name: job.name,
    type: job.type,
    params: job.params,
    schedule: job.schedule,
    timezone: job.timezone,
    enabled: job.enabled,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    nextOccurrenceAt: nextOccurrenceOf(job, now),
  };
}

/** A run as the API shows it (the RunRecord shape of `runs show --json`). */
export function runView(run: RunRecord): RunOut {
  return { ...run };
}
