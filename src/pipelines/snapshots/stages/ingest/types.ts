import type { Clock, Database, Logger } from "tidemark";
import type { HistoryRepo } from "../../repos/history-repo.ts";
import type { SnapshotSettings } from "../../settings.ts";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import type { ParseThreads } from "../parse/parse-threads.ts";
import type { SnapshotDiff } from "../publish/artifacts/key-diff.ts";
import type { SnapshotStorage } from "../publish/storage/snapshot-storage.ts";
import type { ReasonCode } from "../quality/reason-codes/reason-code.ts";
import type { RecoveryReport } from "./recover.ts";

/** What an ingestion needs from the engine. */
export interface IngestDeps {
  storage: SnapshotStorage;
  settings: SnapshotSettings;
  db: Database;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /**
   * The run's id, `<supplier>_<YYYYMMDDTHHMMSSZ>_<rand6>`: the engine run's own id (one id per
   * run), used for the history row, runs/<run_id>/, the state and the manifest.
   */
  runId: string;
  /** The engine run (tm_runs) executing this ingestion; null when called directly (tests). */
  engineRunId: string | null;
  /** Plan only: report what the inbox step would do, change nothing. */
  dryRun: boolean;
  /**
   * Runs a step others can see (the state switch, the input's archive move) under the run's
   * lease: the engine's fenced commit, so a run that lost its lease publishes and moves nothing.
   * Absent (a direct call, e.g. tests): the step just runs.
   */
  commit?: <T>(effect: () => Promise<T>) => Promise<T>;
}

/** One ingestion in progress. */
export interface RunScope {
  deps: IngestDeps;
  supplier: string;
  runId: string;
  /** Precise start time (manifest.started_at). */
  startedAt: string;
  history: HistoryRepo;
  recovery: RecoveryReport;
  inbox: IngestResult["inbox"];
  cfg?: SupplierConfig;
  /** The parse's threads, started while the input is selected; stopped when the run ends. */
  threads: ParseThreads;
}

/** Outcome of one ingestion, returned to the job and printed by the CLI. */
export interface IngestResult {
  supplier: string;
  /** Run id `<supplier>_<ts>_<rand6>`. */
  run_id: string;
  /** NO_INPUT: nothing stable and new in the inbox; PLANNED: dry run. */
  status: "PASS" | "FAIL" | "NO_INPUT" | "PLANNED";
  reason_code: ReasonCode | null;
  detail: string | null;
  input_filename: string | null;
  input_sha256: string | null;
  total_rows: number;
  good_rows: number;
  bad_rows: number;
  bad_ratio: number;
  diff: Omit<SnapshotDiff, "samples"> | null;
  state_path: string | null;
  manifest_path: string | null;
  input_moved_to: string | null;
  inbox: { duplicates: string[]; obsolete: string[]; unstable: string[]; in_flight: string[] };
  recovery: RecoveryReport;
}
