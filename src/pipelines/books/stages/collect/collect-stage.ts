import type { Transaction } from "kysely";
import type { JobContext } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import { googleBooksFetcher } from "../../client/google-books-client.ts";
import { normalizeVolume } from "../../client/normalize-volume.ts";
import type { BooksRunParams } from "../../params.ts";
import { BookRepo, type UpsertCounts } from "../../repos/book-repo.ts";
import { CollectCursorRepo } from "../../repos/cursor-repo.ts";
import type { QuotaRepo } from "../../repos/quota-repo.ts";
import type { BooksSettings } from "../../settings.ts";
import type { BooksTables } from "../../tables.ts";
import { CollectLog } from "./collect-log.ts";
import { type CollectorResult, collect } from "./collector.ts";
import { computeQuerySetHash, shortHash } from "./query-set-hash.ts";

/** What Collect → Upsert tells the job: the summary fields, the collector's result, a skip. */
export interface CollectOutcome {
  summary: Record<string, unknown>;
  result?: CollectorResult;
  skipped: boolean;
}

/** The run's repositories Collect reads through (built once by the job). */
export interface CollectRepos {
  cursors: CollectCursorRepo;
  quota: QuotaRepo;
}

/**
 * Collect → Upsert for one run (docs/pipelines/books.md): reads the job's cursor, pages the API
 * from it, then saves the books and the moved cursor together. Skipped when the cursor is
 * exhausted.
 */
export async function collectAndUpsert(
  ctx: JobContext<BooksSettings>,
  params: BooksRunParams,
  apiKey: string | undefined,
  repos: CollectRepos,
): Promise<CollectOutcome> {
  const hash = computeQuerySetHash(params.queries);
  const log = new CollectLog(ctx.logger, ctx.jobName, hash);
  const cursor = await repos.cursors.getCollectCursor(ctx.jobName, hash);
  const base = { query_set_hash: shortHash(hash), start_index: cursor?.start_index ?? 0 };
  if (cursor?.is_exhausted) {
    log.skipped();
    return { summary: { ...base, collect: "skipped: exhausted" }, skipped: true };
  }
  const maxPerRun = Math.min(params.max_per_run, ctx.limit ?? Number.POSITIVE_INFINITY);
  const fetchPage = googleBooksFetcher({
    settings: ctx.settings,
    google: params.google_books,
    apiKey,
    logger: ctx.logger,
    onRequest: ctx.reportHttpRequest,
  });
  const result = await collect(
    {
      queries: params.queries,
      maxPerRun,
      cursor: cursor && { startIndex: cursor.start_index, isExhausted: false },
    },
    { fetchPage, quota: repos.quota, log, signal: ctx.signal },
  );
  const counts = await saveCollected(ctx, hash, result);
  const state = result.cursorState;
  return {
    summary: {
      ...base,
      next_start_index: state.startIndex,
      stop_reason: state.stopReason,
      exhausted: state.isExhausted,
      pages: result.pages,
      requests: result.requests,
      items: result.items.length,
      unique_books: counts.unique,
      new_books: counts.inserted,
      updated_books: counts.updated,
      new_for_job: counts.newForJob,
    },
    result,
    skipped: false,
  };
}

/**
 * Upsert: the books and the cursor commit together, fenced by the run's lease, so the cursor
 * never moves past books that were not saved and a run that lost its lease moves nothing. The
 * repositories here are the run's transaction's, built once in its one commit.
 */
function saveCollected(
  ctx: JobContext<BooksSettings>,
  hash: string,
  result: CollectorResult,
): Promise<UpsertCounts> {
  const found = result.items.map((i) => ({ book: normalizeVolume(i.volume), query: i.query }));
  const state = result.cursorState;
  return ctx.commit(async (trx: Transaction<BooksTables>) => {
    const counts = await new BookRepo(trx).upsertForJob(found, {
      jobName: ctx.jobName,
      runId: ctx.runId,
      now: isoTimestamp(ctx.jobStartAt),
    });
    await new CollectCursorRepo(trx, ctx.clock).upsertCollectCursor(
      ctx.jobName,
      hash,
      state.startIndex,
      state.isExhausted,
    );
    return counts;
  });
}
