import type { Transaction } from "kysely";
import { canonicalJsonAndHash } from "../hashing/content-hash.ts";
import { type ApplyItem, applyAll } from "./apply-each.ts";
import { collectTargets } from "./collect-targets.ts";
import { inBatchContext } from "./etl-batch-error.ts";
import {
  DEFAULT_MAX_FAILURE_RATE,
  type EtlFailure,
  type EtlFailureKind,
  EtlTally,
  type EtlTotals,
  etlTotals,
  etlVerdict,
} from "./etl-tally.ts";
import type { EtlAppliers, EtlContext, EtlTuning, TargetSource } from "./etl-types.ts";
import type { CurrentRow, Ledger, LedgerUpsert } from "./ledger.ts";
import { mapBounded } from "./map-bounded.ts";
import { checkRawSegment, rawSegmentProblem } from "./raw-key.ts";
import { type RawPutResult, RawStore } from "./raw-store.ts";

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

const COUNTS = [
  "unchanged_skipped",
  "changed",
  "reapplied",
  "not_found",
  "blob_puts",
  "blob_existing",
  "ledger_upserts",
  "applied",
  "would_put",
  "would_upsert",
  "would_apply",
] as const;

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

/** A fetched batch: its targets still to settle (unchanged ones are done) and ledger rows. */
interface PreparedBatch<N> {
  prepared: Array<Prepared<N> | undefined>;
  current: Map<string, CurrentRow>;
}

interface Prepared<N> {
  target: string;
  document: N;
  hash: string;
  /** The document's canonical JSON: hashed once, and stored as is when it changed. */
  text: string;
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
  const { ctx, source, entity, ledger, applyVersion } = opts;
  checkRawSegment("source", source);
  checkRawSegment("entity", entity);
  if (!Number.isInteger(applyVersion)) throw new TypeError("applyVersion must be an integer");
  const maxFailureRate = opts.maxFailureRate ?? DEFAULT_MAX_FAILURE_RATE;
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  // Raw puts are blob writes, not API calls: most of their time is an fsync, so more of them
  // in flight keep the disk (and the thread pool) busy while the API concurrency stays as set.
  const putConcurrency = Math.max(concurrency, 32);
  const raw = opts.rawStore ?? new RawStore(ctx.blobs, ctx.env);
  const tally = new EtlTally(COUNTS);
  const fail = (target: string, kind: EtlFailureKind, err: unknown) => {
    tally.fail(target, kind, err);
    ctx.logger.info({ source, entity, target, kind, err }, "target failed");
  };

  // A dry run only checks; a real run claims the raw location for its env before anything.
  if (ctx.dryRun) await raw.checkEnv();
  else await raw.claimEnv();
  // Which targets run (the first `limit` seen) is decided first; they are then processed in key
  // order, so that consecutive batches write neighbouring entries of the ledger's and the
  // domain tables' indexes instead of scattering over them: fewer pages read and written per
  // commit (a 100,000-item first load spends less than half the time in SQLite).
  const targets = (await collectTargets(opts.targets, ctx.limit)).sort();

  // A batch's ledger rows are read as its fetches start, so a target whose content is unchanged
  // (and applied by this version) is counted as soon as it is hashed and keeps neither its
  // document nor its text until the batch settles: a re-run of unchanged targets holds little.
  const prepare = async (batch: string[]): Promise<PreparedBatch<N>> => {
    const current = ledger.getCurrent(source, entity, batch);
    const [prepared, rows] = await Promise.all([
      mapBounded(batch, concurrency, async (target) => {
        const bad = rawSegmentProblem(target);
        if (bad !== undefined) return void fail(target, "target", `target id ${bad}`);
        let payload: R | undefined;
        try {
          payload = await opts.fetch(target, ctx.signal);
        } catch (err) {
          return void fail(target, "fetch", err);
        }
        if (payload === undefined) return void tally.add("not_found");
        let done: Prepared<N>;
        try {
          const document = await opts.normalize(payload, target);
          const { text, hash } = canonicalJsonAndHash(document);
          done = { target, document, hash, text };
        } catch (err) {
          return void fail(target, "normalize", err);
        }
        const row = (await current).get(target);
        if (row?.content_hash === done.hash && row.applied_version === applyVersion) {
          return void tally.add("unchanged_skipped");
        }
        return done;
      }),
      current,
    ]);
    return { prepared, current: rows };
  };

  const settle = async ({ prepared, current }: PreparedBatch<N>): Promise<void> => {
    const ok = prepared.filter((p): p is Prepared<N> => p !== undefined);
    if (ok.length === 0) return;
    const changed: Prepared<N>[] = [];
    const reapply: ApplyItem<N>[] = [];
    for (const p of ok) {
      const row = current.get(p.target);
      if (row === undefined || row.content_hash !== p.hash) changed.push(p);
      else reapply.push(item(p, row.s3_key, "reapply"));
    }
    if (ctx.dryRun) {
      tally.add("changed", changed.length);
      tally.add("reapplied", reapply.length);
      tally.add("would_put", changed.length);
      tally.add("would_upsert", changed.length);
      tally.add("would_apply", changed.length + reapply.length);
      return;
    }
    // Raw puts happen before the commit: immutable and idempotent, so a lost lease harms nothing.
    const saved = (
      await mapBounded(changed, putConcurrency, async (p) => {
        try {
          const put = await raw.putCanonical(
            { source, entity, sourceId: p.target },
            p.text,
            p.hash,
          );
          tally.add(put.created ? "blob_puts" : "blob_existing");
          return { p, put };
        } catch (err) {
          return void fail(p.target, "put", err);
        }
      })
    ).filter((s): s is { p: Prepared<N>; put: RawPutResult } => s !== undefined);
    const work = [...saved.map((s) => item(s.p, s.put.key, "changed")), ...reapply];
    if (work.length === 0) return;
    const upserts: LedgerUpsert[] = saved.map(({ p, put }) => ({
      sourceId: p.target,
      contentHash: p.hash,
      s3Key: put.key,
      etag: put.etag,
      savedAt: put.savedAt,
    }));
    const result = await ctx.commit(async (tx: Transaction<DB>) => {
      const inTx = ledger.within(tx);
      const upserted = await inTx.batchUpsert(source, entity, upserts);
      const outcome = await applyAll(tx, work, opts, ctx.signal);
      await inTx.markApplied(source, entity, outcome.applied.map(appliedTarget), applyVersion);
      return { upserted, outcome };
    });
    tally.add("ledger_upserts", result.upserted);
    tally.add("applied", result.outcome.applied.length);
    for (const done of result.outcome.applied) {
      tally.add(done.reason === "changed" ? "changed" : "reapplied");
    }
    for (const { item: it, error } of result.outcome.failed) fail(it.target, "apply", error);
  };

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

  const totals = etlTotals(targets.length, tally.failureCount);
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

function item<N>(p: Prepared<N>, rawKey: string, reason: "changed" | "reapply"): ApplyItem<N> {
  return { target: p.target, document: p.document, contentHash: p.hash, rawKey, reason };
}

function appliedTarget<N>(it: ApplyItem<N>): { sourceId: string; contentHash: string } {
  return { sourceId: it.target, contentHash: it.contentHash };
}
