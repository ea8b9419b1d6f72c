import type { JobRecord } from "../jobs/job-repo.ts";

/** One decision of the scheduler to start a job. */
export interface Fire {
  job: JobRecord;
  /** The cron occurrence being fired (before jitter). */
  occurrence: Date;
  /** When it fires: the occurrence plus this process's jitter offset. */
  fireAt: Date;
  /** `on-time` (or late within the grace period) or `misfire` (run_once catching up). */
  kind: "on-time" | "misfire";
}

/** What became of a fire. */
export type FireOutcome =
  | "queued"
  | "ran"
  | "skipped-running"
  | "skipped-queued"
  /** Another scheduler (process) fired this occurrence already. */
  | "skipped-claimed"
  /** Too late, and the misfire policy is `skip`. */
  | "skipped-misfire"
  | "error";

/** Carries a fire out: queue a run request, or run the job in this process. */
export type FireDispatcher = (fire: Fire, signal: AbortSignal) => Promise<FireOutcome>;
