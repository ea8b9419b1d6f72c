import type { Transaction } from "kysely";
import { type ApplyItem, applyAll } from "./apply-each.ts";
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
import type { EtlAppliers, EtlContext, EtlTuning } from "./etl-types.ts";
import type { Ledger, PendingCursor, PendingRow } from "./ledger.ts";
import { mapBounded } from "./map-bounded.ts";
import { RawStore } from "./raw-store.ts";

// Raw reads in flight at most, whatever the page size.
const MAX_READS_IN_FLIGHT = 500;

/** What `reapplyEntity` needs. */
export interface ReapplyOptions<N, DB> extends EtlTuning, EtlAppliers<N, DB> {
  ctx: EtlContext;
  source: string;
  entity: string;
  ledger: Ledger;
  applyVersion: number;
  /** Turns the stored canonical JSON back into the document `apply` expects (default JSON.parse). */
  parse?: (text: string) => N;
  /** Default: a RawStore on ctx.blobs for ctx.env. */
  rawStore?: RawStore;
}

/** The summary of a re-apply: every pending row ends reapplied or failed. */
export type ReapplySummary = EtlTotals & {
  source: string;
  entity: string;
  apply_version: number;
  dry_run: boolean;
  reapplied: number;
  would_apply?: number;
  failures: EtlFailure[];
  failures_omitted: number;
};

/** A JobResult: `failed` with a message when the failure rate is above the allowed one. */
export interface ReapplyResult {
  status: "succeeded" | "failed";
  message?: string;
  summary: ReapplySummary;
}

type Page<N> = { rows: PendingRow[]; items: ApplyItem<N>[] };
type Tally = EtlTally<"reapplied" | "would_apply">;

/**
 * Re-applies every ledger row of an entity not applied by `applyVersion` (never applied, or by
 * another version), reading each normalized document from the raw store — no fetch. A raw
 * object that is missing or whose SHA-256 is not its ledger hash is that row's failure.
 * Commits go through ctx.commit like `runEntityEtl`; ctx.limit caps the rows.
 */
export async function reapplyEntity<N, DB>(opts: ReapplyOptions<N, DB>): Promise<ReapplyResult> {
  const { ctx, source, entity, ledger, applyVersion } = opts;
  const tally: Tally = new EtlTally(["reapplied", "would_apply"] as const);
  const steps = reapplySteps(opts, tally);
  const pending = await ledger.countPendingReapply(source, entity, applyVersion);
  const cap = Math.min(pending, ctx.limit ?? pending);
  const progress = ctx.progress(`${source} ${entity} reapply`, cap);
  let seen = 0;
  // The next page (ledger rows and raw documents) is read while the current one commits.
  let next = steps.readPage(undefined, cap);
  try {
    for (;;) {
      ctx.signal.throwIfAborted();
      const page = await next;
      if (page === undefined) break;
      seen += page.rows.length;
      const last = page.rows[page.rows.length - 1];
      const after = last && { savedAt: last.saved_at, sourceId: last.source_id };
      next = steps.readPage(after, cap - seen);
      if (ctx.dryRun) tally.add("would_apply", page.items.length);
      else if (page.items.length > 0) {
        try {
          await steps.commitBatch(page.items);
        } catch (err) {
          const batch = page.items.map((it) => it.target);
          const firstBatch = seen === page.rows.length;
          throw inBatchContext(`${source} ${entity} reapply`, batch, err, ctx.signal, firstBatch);
        }
      }
      progress.tick(page.rows.length);
    }
  } finally {
    progress.stop();
    // A page read ahead is not used once the run stops; let it settle before reporting.
    await next.catch(() => undefined);
  }
  return reapplyResult(opts, seen, tally);
}

/** Reading a page of pending rows with their raw documents, and committing one. */
function reapplySteps<N, DB>(opts: ReapplyOptions<N, DB>, tally: Tally) {
  const { ctx, source, entity, ledger, applyVersion } = opts;
  const parse = opts.parse ?? ((text: string) => JSON.parse(text) as N);
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  // Raw reads are local or object-store GETs, not API calls (the fetch concurrency guards an
  // API's limits): a whole page of them in flight, so the next page's reads are done while the
  // current one commits (the fs store reads the files a page asks for together in one batch).
  const readConcurrency = Math.max(concurrency, 32, Math.min(batchSize, MAX_READS_IN_FLIGHT));
  const raw = opts.rawStore ?? new RawStore(ctx.blobs, ctx.env);
  const fail = (target: string, kind: EtlFailureKind, err: unknown) => {
    tally.fail(target, kind, err);
    ctx.logger.info({ source, entity, target, kind, err }, "target failed");
  };

  async function readItem(row: PendingRow): Promise<ApplyItem<N> | undefined> {
    try {
      const text = await raw.getVerifiedText(row.s3_key, row.content_hash);
      return {
        target: row.source_id,
        document: parse(text),
        contentHash: row.content_hash,
        rawKey: row.s3_key,
        reason: "reapply",
      };
    } catch (err) {
      return void fail(row.source_id, "raw", err);
    }
  }

  return {
    async readPage(after: PendingCursor | undefined, left: number): Promise<Page<N> | undefined> {
      if (left <= 0) return undefined;
      const rows = await ledger.pendingReapply(source, entity, applyVersion, {
        after,
        limit: Math.min(batchSize, left),
      });
      if (rows.length === 0) return undefined;
      const items = (await mapBounded(rows, readConcurrency, (row) => readItem(row))).filter(
        (it): it is ApplyItem<N> => it !== undefined,
      );
      return { rows, items };
    },

    async commitBatch(items: ApplyItem<N>[]): Promise<void> {
      const outcome = await ctx.commit(async (tx: Transaction<DB>) => {
        const done = await applyAll(tx, items, opts, ctx.signal);
        await ledger.within(tx).markApplied(
          source,
          entity,
          done.applied.map((it) => ({ sourceId: it.target, contentHash: it.contentHash })),
          applyVersion,
        );
        return done;
      });
      tally.add("reapplied", outcome.applied.length);
      for (const { item, error } of outcome.failed) fail(item.target, "apply", error);
    },
  };
}

/** The summary and the verdict once every page is done. */
function reapplyResult<N, DB>(
  opts: ReapplyOptions<N, DB>,
  seen: number,
  tally: Tally,
): ReapplyResult {
  const { ctx, source, entity, applyVersion } = opts;
  const totals = etlTotals(seen, tally.failureCount);
  const summary: ReapplySummary = {
    source,
    entity,
    apply_version: applyVersion,
    dry_run: ctx.dryRun,
    ...totals,
    reapplied: tally.counts.reapplied,
    ...(ctx.dryRun ? { would_apply: tally.counts.would_apply } : {}),
    failures: tally.failures,
    failures_omitted: tally.omitted,
  };
  const maxFailureRate = opts.maxFailureRate ?? DEFAULT_MAX_FAILURE_RATE;
  return { ...etlVerdict(`${source} ${entity} reapply`, totals, maxFailureRate), summary };
}
