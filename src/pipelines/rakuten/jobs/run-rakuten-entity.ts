import type { JobContext } from "tidemark";
import {
  type ApplyInput,
  type EntityEtlResult,
  runEntityEtl,
  type TargetSource,
} from "tidemark/kit";
import { stagingLedger } from "../repos/staging-ledger.ts";
import { RAKUTEN_SOURCE, type RakutenEntity } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { type ApplyMeta, applyMetaOf, type BatchApply, batchApplier } from "./apply/apply-meta.ts";

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
