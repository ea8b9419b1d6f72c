import type { Generated } from "kysely";
/** Row types of the engine's own tables (`tm_` prefix). Timestamps are ISO-8601 UTC strings. */

export interface JobsTable {
  name: string;
  type: string;
  /** Params as JSON text. */
  params: string;
  schedule: string | null;
  timezone: string;
  /** 1 or 0. */
  enabled: number;
  /** Upper bound of the random per-process offset added to each occurrence (0 = none). */
  jitter_seconds: number;
  created_at: string;
  updated_at: string;
}

export type RunStatus = "running" | "succeeded" | "failed" | "skipped" | "abandoned";

export interface RunsTable {
  run_id: string;
  job_name: string;
  job_type: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  /** Summary returned by the job, as JSON text. */
  summary: string | null;
  error: string | null;
  dry_run: number;
  /** The lease this run holds while it runs; used to detect abandoned runs. */
  lease_key: string;
  host: string;
  pid: number;
  /** The run's latest progress as JSON text (RunProgress), or null when it reported none. */
  progress?: string | null;
  /** The params the run ran with, as JSON text; null for runs recorded before they were kept. */
  params?: string | null;
}

export interface LeasesTable {
  key: string;
  holder: string;
  acquired_at: string;
  heartbeat_at: string;
  expires_at: string;
  /** formatOwner() of the holding process; null in rows from before it was recorded. */
  owner: string | null;
  /** Fencing token: grows by one on every take-over of the key. */
  token: Generated<number>;
}

/** A queue message a run sent (engine migration 0014). */
export interface RunChildrenTable {
  run_id: string;
  queue: string;
  message_id: string;
  sent_at: string;
}

export interface EngineTables {
  tm_jobs: JobsTable;
  tm_runs: RunsTable;
  tm_leases: LeasesTable;
  tm_run_children: RunChildrenTable;
}
