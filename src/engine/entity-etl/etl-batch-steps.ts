import type { Transaction } from "kysely";
import { canonicalJsonAndHash } from "../hashing/content-hash.ts";
import { type ApplyItem, applyAll } from "./apply-each.ts";
import type { EtlFailureKind, EtlTally } from "./etl-tally.ts";
import type { CurrentRow, LedgerUpsert } from "./ledger.ts";
import { mapBounded } from "./map-bounded.ts";
import { rawSegmentProblem } from "./raw-key.ts";
import type { RawPutResult, RawStore } from "./raw-store.ts";
import type { EntityEtlOptions } from "./run-entity-etl.ts";

/** What a run counts; every target ends in one of the first four or failed. */
export const COUNTS = [
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

/** A fetched batch: its targets still to settle (unchanged ones are done) and ledger rows. */
export interface PreparedBatch<N> {
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

/** The two steps of one batch: prepare (fetch, normalize, hash, compare) and settle (write). */
export interface EtlBatchSteps<N> {
  prepare(batch: string[]): Promise<PreparedBatch<N>>;
  settle(batch: PreparedBatch<N>): Promise<void>;
}

/** The batch steps of `runEntityEtl`, counting into `tally`. */
export function etlBatchSteps<R, N, DB>(
  opts: EntityEtlOptions<R, N, DB>,
  raw: RawStore,
  tally: EtlTally<(typeof COUNTS)[number]>,
): EtlBatchSteps<N> {
  const { ctx, source, entity, ledger } = opts;
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  // Raw puts are blob writes, not API calls: most of their time is an fsync, so more of them
  // in flight keep the disk (and the thread pool) busy while the API concurrency stays as set.
  const putConcurrency = Math.max(concurrency, 32);
  const fail: Fail = (target, kind, err) => {
    tally.fail(target, kind, err);
    ctx.logger.info({ source, entity, target, kind, err }, "target failed");
  };

  // A batch's ledger rows are read as its fetches start, so a target whose content is unchanged
  // (and applied by this version) is counted as soon as it is hashed and keeps neither its
  // document nor its text until the batch settles: a re-run of unchanged targets holds little.
  const prepare = async (batch: string[]): Promise<PreparedBatch<N>> => {
    const current = ledger.getCurrent(source, entity, batch);
    const [prepared, rows] = await Promise.all([
      mapBounded(batch, concurrency, (target) => prepareOne(opts, fail, tally, target, current)),
      current,
    ]);
    return { prepared, current: rows };
  };

  /** Raw puts of the changed documents; a failed put is that target's failure. */
  const putChanged = async (changed: Prepared<N>[]) =>
    (
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
    const saved = await putChanged(changed);
    const work = [...saved.map((s) => item(s.p, s.put.key, "changed")), ...reapply];
    if (work.length === 0) return;
    const upserts: LedgerUpsert[] = saved.map(({ p, put }) => ({
      sourceId: p.target,
      contentHash: p.hash,
      s3Key: put.key,
      etag: put.etag,
      savedAt: put.savedAt,
    }));
    const result = await commitBatch(opts, upserts, work);
    tally.add("ledger_upserts", result.upserted);
    tally.add("applied", result.outcome.applied.length);
    for (const done of result.outcome.applied) {
      tally.add(done.reason === "changed" ? "changed" : "reapplied");
    }
    for (const { item: it, error } of result.outcome.failed) fail(it.target, "apply", error);
  };

  return { prepare, settle };
}

type Fail = (target: string, kind: EtlFailureKind, err: unknown) => void;

/** Fetch, normalize and hash one target; undefined once it is counted (failed, gone, unchanged). */
async function prepareOne<R, N, DB>(
  opts: EntityEtlOptions<R, N, DB>,
  fail: Fail,
  tally: EtlTally<(typeof COUNTS)[number]>,
  target: string,
  current: Promise<Map<string, CurrentRow>>,
): Promise<Prepared<N> | undefined> {
  const bad = rawSegmentProblem(target);
  if (bad !== undefined) return void fail(target, "target", `target id ${bad}`);
  let payload: R | undefined;
  try {
    payload = await opts.fetch(target, opts.ctx.signal);
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
  if (row?.content_hash === done.hash && row.applied_version === opts.applyVersion) {
    return void tally.add("unchanged_skipped");
  }
  return done;
}

/** One fenced transaction: the ledger upserts, each apply in a savepoint, the applied marks. */
function commitBatch<R, N, DB>(
  opts: EntityEtlOptions<R, N, DB>,
  upserts: LedgerUpsert[],
  work: ApplyItem<N>[],
) {
  const { ctx, source, entity, ledger, applyVersion } = opts;
  return ctx.commit(async (tx: Transaction<DB>) => {
    const inTx = ledger.within(tx);
    const upserted = await inTx.batchUpsert(source, entity, upserts);
    const outcome = await applyAll(tx, work, opts, ctx.signal);
    await inTx.markApplied(source, entity, outcome.applied.map(appliedTarget), applyVersion);
    return { upserted, outcome };
  });
}

function item<N>(p: Prepared<N>, rawKey: string, reason: "changed" | "reapply"): ApplyItem<N> {
  return { target: p.target, document: p.document, contentHash: p.hash, rawKey, reason };
}

function appliedTarget<N>(it: ApplyItem<N>): { sourceId: string; contentHash: string } {
  return { sourceId: it.target, contentHash: it.contentHash };
}
