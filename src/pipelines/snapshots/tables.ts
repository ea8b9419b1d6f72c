import type { Generated } from "kysely";

/** Row types of the snapshots pipeline's tables (Postgres schema `snapshots`). */

/** How a snapshots run ended; RUNNING until it does, INTERRUPTED when its process died. */
export type SnapshotRunStatus = "RUNNING" | "PASS" | "FAIL" | "NO_INPUT" | "INTERRUPTED";

/** `snapshots.run`: one row per snapshots run. */
export interface RunTable {
  /** Run id `<supplier>_<ts>_<rand6>`; the primary key guarantees uniqueness. */
  run_id: string;
  supplier: string;
  /** The engine run (tm_runs) that executed it. */
  engine_run_id: string | null;
  status: SnapshotRunStatus;
  reason_code: string | null;
  detail: string | null;
  input_filename: string | null;
  input_sha256: string | null;
  good_rows: number | null;
  bad_rows: number | null;
  added: number | null;
  removed: number | null;
  changed: number | null;
  started_at: string;
  finished_at: string | null;
  published_at: string | null;
}

/** What happened to an input file seen in the inbox (drift detection). */
export type InputDisposition = "selected" | "duplicate" | "obsolete";

/** `snapshots.input_event`: one row per inbox file a run saw. */
export interface InputEventTable {
  id: Generated<number>;
  supplier: string;
  run_id: string;
  observed_at: string;
  filename: string;
  sha256: string;
  disposition: InputDisposition;
}

/** The pipeline's tables, for `typed<SnapshotTables>(db)`. */
export interface SnapshotTables {
  "snapshots.run": RunTable;
  "snapshots.input_event": InputEventTable;
}
