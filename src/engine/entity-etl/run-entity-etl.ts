import { collectTargets } from "./collect-targets.ts";
import { inBatchContext } from "./etl-batch-error.ts";
import { COUNTS, etlBatchSteps, type PreparedBatch } from "./etl-batch-steps.ts";
import {
  DEFAULT_MAX_FAILURE_RATE,
  type EtlFailure,
  EtlTally,
  type EtlTotals,
  etlTotals,
  etlVerdict,
} from "./etl-tally.ts";
import type { EtlAppliers, EtlContext, EtlTuning, TargetSource } from "./etl-types.ts";
import type { Ledger } from "./ledger.ts";
import { checkRawSegment } from "./raw-key.ts";
import { RawStore } from "./raw-store.ts";

/** What `runEntityEtl` needs: the entity, its loader, ledger and apply step, typed. */
export interface EntityEtlOptions<R, N, DB> extends EtlTuning, EtlAppliers<N, DB> {
  ctx: EtlContext;
  /** `source=` of the raw key and the ledger, e.g. the API's name. */
  source: string;
  /** `entity=` of the raw key and the ledger, e.g. `item`. */
  entity: string;
  targets: TargetSource;
  /** The raw payload of one target; `undefined` means the source no longer has it (`not_found`). */
  fetch(target: string, signal: AbortSignal): Promise<R | undefined>;
  /** The document to hash and store: stable key order and values, no fetch-time metadata. */
  normalize(raw: R, target: string): N | Promise<N>;
  /** Bump it when the apply's output changes: rows applied by another version are applied again. */
  applyVersion: number;
  ledger: Ledger;
  /** Default: a RawStore on ctx.blobs for ctx.env. */
  rawStore?: RawStore;
}

/**
 * A run's summary. Every target ends in one of unchanged_skipped, changed, reapplied,
 * not_found or failed. In a dry run nothing is written: changed/reapplied say what the
 * comparison found and would_put/would_upsert/would_apply what a real run would write.
 */
export type EntityEtlSummary = EtlTotals & { [K in (typeof COUNTS)[number]]?: number } & {
  source: string;
  entity: string;
  apply_version: number;
  dry_run: boolean;
  failures: EtlFailure[];
  failures_omitted: number;
};

/** A JobResult: `failed` with a message when the failure rate is above the allowed one. */
export interface EntityEtlResult {
  status: "succeeded" | "failed";
  message?: string;
  summary: EntityEtlSummary;
}

/**
 * The entity ETL skeleton: per target fetch → normalize → hash → ledger compare → raw put
 * (new content only) → ledger upsert → apply, with `applyVersion` deciding re-application.
 * Targets go in key order, in batches: fetched with bounded concurrency (the next batch while
 * the current one commits), compared with one ledger read, and committed in one fenced
 * transaction (ledger upserts, then each apply in a savepoint, then the applied marks). A
 * failed fetch, normalize, put or apply is that target's failure and the run goes on; a
 * database error throws.
 */
export async function runEntityEtl<R, N, DB>(
  opts: EntityEtlOptions<R, N, DB>,
): Promise<EntityEtlResult> {
  const { ctx, source, entity, applyVersion } = opts;
  checkRawSegment("source", source);
  checkRawSegment("entity", entity);
  if (!Number.isInteger(applyVersion)) throw new TypeError("applyVersion must be an integer");
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const raw = opts.rawStore ?? new RawStore(ctx.blobs, ctx.env);
  const tally = new EtlTally(COUNTS);
  const { prepare, settle } = etlBatchSteps(opts, raw, tally);

  // A dry run only checks; a real run claims the raw location for its env before anything.
  if (ctx.dryRun) await raw.checkEnv();
  else await raw.claimEnv();
  // Which targets run (the first `limit` seen) is decided first; they are then processed in key
  // order, so that consecutive batches write neighbouring entries of the ledger's and the
  // domain tables' indexes instead of scattering over them: fewer pages read and written per
  // commit (a 100,000-item first load spends less than half the time in SQLite).
  const targets = (await collectTargets(opts.targets, ctx.limit)).sort();

  const progress = ctx.progress(`${source} ${entity}`, targets.length);
  let next: Promise<PreparedBatch<N>> | undefined;
  try {
    for (let start = 0; start < targets.length; start += batchSize) {
      ctx.signal.throwIfAborted();
      const batch = targets.slice(start, start + batchSize);
      try {
        const prepared = await (next ?? prepare(batch));
        const after = targets.slice(start + batchSize, start + 2 * batchSize);
        next = after.length > 0 ? prepare(after) : undefined;
        // Its ledger read may fail while this batch settles: handled when awaited, not a crash.
        next?.catch(() => undefined);
        await settle(prepared);
      } catch (err) {
        throw inBatchContext(`${source} ${entity}`, batch, err, ctx.signal, start === 0);
      }
      progress.tick(batch.length, {
        changed: tally.counts.changed,
        failed: tally.failureCount,
      });
    }
  } finally {
    progress.stop();
    // A batch fetched ahead is left only when the run failed: let it finish before the run
    // reports (the run's error is the first one).
    await next?.catch(() => undefined);
  }

  return entityEtlResult(opts, targets.length, tally);
}

/** The summary and the verdict once every batch is done. */
function entityEtlResult<R, N, DB>(
  opts: EntityEtlOptions<R, N, DB>,
  targetCount: number,
  tally: EtlTally<(typeof COUNTS)[number]>,
): EntityEtlResult {
  const { ctx, source, entity, applyVersion } = opts;
  const maxFailureRate = opts.maxFailureRate ?? DEFAULT_MAX_FAILURE_RATE;
  const totals = etlTotals(targetCount, tally.failureCount);
  const summary: EntityEtlSummary = {
    source,
    entity,
    apply_version: applyVersion,
    dry_run: ctx.dryRun,
    ...totals,
    ...tally.counts,
    failures: tally.failures,
    failures_omitted: tally.omitted,
  };
  if (!ctx.dryRun) {
    delete summary.would_put;
    delete summary.would_upsert;
    delete summary.would_apply;
  }
  return { ...etlVerdict(`${source} ${entity}`, totals, maxFailureRate), summary };
}
