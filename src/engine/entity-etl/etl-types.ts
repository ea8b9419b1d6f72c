import type { Transaction } from "kysely";
import type { JobContext } from "../context/job-context.ts";

/** What the entity ETL uses of a run's context (any `JobContext` will do). */
export type EtlContext = Pick<
  JobContext,
  | "env"
  | "db"
  | "blobs"
  | "clock"
  | "dryRun"
  | "limit"
  | "signal"
  | "logger"
  | "commit"
  | "progress"
>;

/** Targets (source ids): a list, an async stream, or a function giving either (seed's target provider). */
export type TargetSource =
  | Iterable<string>
  | AsyncIterable<string>
  | (() =>
      | Iterable<string>
      | AsyncIterable<string>
      | Promise<Iterable<string> | AsyncIterable<string>>);

/** What `apply` receives for one target, inside the run's fenced commit. */
export interface ApplyInput<N, DB> {
  /** The fenced transaction: write the domain rows through it (never through ctx.db). */
  tx: Transaction<DB>;
  target: string;
  document: N;
  contentHash: string;
  /** Raw store key of the document. */
  rawKey: string;
  /** `changed`: new content; `reapply`: content already in the ledger, not applied by this version. */
  reason: "changed" | "reapply";
}

/**
 * Writes one target's domain rows. A throw is that target's failure: its writes are rolled
 * back (a savepoint) and the run goes on; it stays pending and is re-applied by the next run.
 */
export type Applier<N, DB> = (input: ApplyInput<N, DB>) => Promise<void>;

/** Tuning shared by `runEntityEtl` and `reapplyEntity`. */
export interface EtlTuning {
  /** The run ends `failed` when more than this share of targets failed (default 0.05). */
  maxFailureRate?: number;
  /** Targets per ledger read and fenced commit (default 200). */
  batchSize?: number;
  /** Fetches (and raw puts or reads) in flight at once (default 8). */
  concurrency?: number;
}
