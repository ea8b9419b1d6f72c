import type { Transaction } from "kysely";
import type { JobContext } from "../registry/job-context.ts";

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

/** Targets (source ids): a list, an async stream, or a function giving either. */
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

/**
 * Writes many targets' domain rows at once (a few multi-row statements instead of a few per
 * target). Optional, next to `apply`: when it throws, its writes are rolled back (a savepoint)
 * and each target is applied alone with `apply`, so one bad target still fails alone.
 */
export type BatchApplier<N, DB> = (
  tx: Transaction<DB>,
  items: ReadonlyArray<Omit<ApplyInput<N, DB>, "tx">>,
) => Promise<void>;

/** Tuning shared by `runEntityEtl` and `reapplyEntity`. */
export interface EtlTuning {
  /** The run ends `failed` when more than this share of targets failed (default 0.05). */
  maxFailureRate?: number;
  /** Targets per ledger read and fenced commit (default 200). */
  batchSize?: number;
  /** Fetches in flight at once (default 8); raw puts and a re-apply's raw reads: at least 32. */
  concurrency?: number;
}

/** The appliers of a run: `apply` per target, and optionally `applyBatch` for many at once. */
export interface EtlAppliers<N, DB> {
  apply: Applier<N, DB>;
  /** Applies a whole batch in one go; on a throw the batch falls back to `apply` per target. */
  applyBatch?: BatchApplier<N, DB>;
}
