import type { Transaction } from "kysely";
import type { JobContext } from "tidemark";
import {
  type ApplyInput,
  type BatchApplier,
  type EntityEtlResult,
  isoTimestamp,
  Ledger,
  runEntityEtl,
  type TargetSource,
} from "tidemark/kit";
import { RAKUTEN_SOURCE, type RakutenEntity } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";

/** The ledger (`apl.staging`) every Rakuten entity job shares. */
export const STAGING_TABLE = "apl.staging";

/** What every applier knows besides the document: the run and the time it writes. */
export interface ApplyMeta {
  runId: string;
  /** Now, as ISO-8601 UTC (the run's clock). */
  now(): string;
  /** Shops written by this run (code → what was written), so each is written once. */
  shopsWritten: Map<string, string>;
}

/** An entity's batch applier: many targets' rows in one go, inside the run's commit. */
export type BatchApply<N> = (
  tx: Transaction<RakutenTables>,
  items: ReadonlyArray<Omit<ApplyInput<N, RakutenTables>, "tx">>,
  meta: ApplyMeta,
) => Promise<void>;

/** The engine's batch applier bound to the run's metadata, if the entity has one. */
export function batchApplier<N>(
  batch: BatchApply<N> | undefined,
  meta: ApplyMeta,
): BatchApplier<N, RakutenTables> | undefined {
  return batch === undefined ? undefined : (tx, items) => batch(tx, items, meta);
}

/** The run's apply metadata. */
export function applyMetaOf(ctx: Pick<JobContext, "runId" | "clock">): ApplyMeta {
  return { runId: ctx.runId, now: () => isoTimestamp(ctx.clock.now()), shopsWritten: new Map() };
}

/** The staging ledger of a run. */
export function stagingLedger(ctx: Pick<JobContext, "db" | "clock">): Ledger {
  return new Ledger(ctx.db, STAGING_TABLE, ctx.clock);
}

/** Tuning params every entity job has. */
export interface EtlParams {
  max_failure_rate: number;
  concurrency: number;
  batch_size: number;
}

/** One entity job on the engine's entity ETL: source `rakuten`, the shared staging ledger. */
export function runRakutenEntity<R, N>(opts: {
  ctx: JobContext;
  entity: RakutenEntity;
  params: EtlParams;
  targets: TargetSource;
  fetch(target: string, signal: AbortSignal): Promise<R | undefined>;
  normalize(raw: R): N;
  apply(input: ApplyInput<N, RakutenTables>, meta: ApplyMeta): Promise<void>;
  /** Optional: applies a whole batch at once (falls back to `apply` per target on a throw). */
  applyBatch?: BatchApply<N>;
  applyVersion: number;
}): Promise<EntityEtlResult> {
  const { ctx, params } = opts;
  const meta = applyMetaOf(ctx);
  return runEntityEtl<R, N, RakutenTables>({
    ctx,
    source: RAKUTEN_SOURCE,
    entity: opts.entity,
    targets: opts.targets,
    fetch: opts.fetch,
    normalize: (raw) => opts.normalize(raw),
    apply: (input) => opts.apply(input, meta),
    applyBatch: batchApplier(opts.applyBatch, meta),
    applyVersion: opts.applyVersion,
    ledger: stagingLedger(ctx),
    maxFailureRate: params.max_failure_rate,
    concurrency: params.concurrency,
    batchSize: params.batch_size,
  });
}

/** A numeric target id (genre, tag) back from its source id. */
export function numericTarget(target: string): number {
  const n = Number(target);
  if (!Number.isSafeInteger(n) || n < 0 || String(n) !== target) {
    throw new Error(`target ${JSON.stringify(target)} is not a numeric id`);
  }
  return n;
}
