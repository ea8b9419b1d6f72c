import { QuotaExceededError } from "tidemark/kit";
import type { FetchPage } from "../../client/google-books-client.ts";
import { isEmptyAnswer, type Volume } from "../../client/volumes-schema.ts";
import { GOOGLE_BOOKS_PAGE_MAX } from "../../params.ts";
import type { CollectLog } from "./collect-log.ts";
import { checkExhaustion } from "./exhaustion.ts";
import { normalizedQuerySet } from "./query-set-hash.ts";

/** Why collection stopped. */
export type StopReason = "quota" | "max_per_run" | "exhausted" | "error" | null;

/** The cursor after a collect: what the caller saves. */
export interface CursorState {
  /** Where the next run starts. */
  startIndex: number;
  /** True only when stopReason is `exhausted`. */
  isExhausted: boolean;
  stopReason: StopReason;
}

/** One item as returned, with the query that returned it (duplicates kept; Upsert collapses). */
export interface CollectedItem {
  volume: Volume;
  query: string;
}

/** What collect returns. */
export interface CollectorResult {
  items: CollectedItem[];
  /** Rounds of pages (one call per active query each). */
  pages: number;
  /** API calls made (HTTP retries not counted here; the quota counts them). */
  requests: number;
  cursorState: CursorState;
  /** The failure when stopReason is `error`. */
  error?: unknown;
}

/** The daily request budget, as the collector needs it. */
export interface QuotaBudget {
  tryReserve(): Promise<boolean>;
  addUsed(count: number): Promise<void>;
  markSpent(): Promise<void>;
}

/** Collaborators of collect: the API, the budget, the log lines, the run's signal. */
export interface CollectDeps {
  fetchPage: FetchPage;
  quota: QuotaBudget;
  log: CollectLog;
  signal?: AbortSignal;
}

/**
 * Pages through the query set from the cursor (docs/ops/collect.md, "How a run pages").
 *
 * Several queries share one cursor, so they advance in lockstep: each round asks every query
 * still active for the page at `startIndex`, with `maxResults = min(40, ⌊remaining / active⌋)`
 * (for one query exactly `min(40, maxPerRun − collected)`: never overfetch). Each
 * call is judged in this order — error, quota, max_per_run, exhausted. A query whose page
 * is empty or reaches its totalItems drops out for the rest of the run. The next start is the
 * smallest position a still-active query reached, so no query ever skips items (a query that
 * got further re-reads a few, which Upsert collapses); when every query is exhausted it is the
 * furthest position reached (= totalItems for a single query; unchanged on an empty page).
 */
export async function collect(
  input: {
    queries: readonly string[];
    maxPerRun: number;
    cursor?: { startIndex: number; isExhausted: boolean };
  },
  deps: CollectDeps,
): Promise<CollectorResult> {
  const { fetchPage, quota, log, signal } = deps;
  const queries = normalizedQuerySet(input.queries);
  let start = input.cursor?.startIndex ?? 0;
  const items: CollectedItem[] = [];
  let pages = 0;
  let requests = 0;
  const done = (state: CursorState, error?: unknown): CollectorResult => ({
    items,
    pages,
    requests,
    cursorState: state,
    ...(error === undefined ? {} : { error }),
  });
  if (input.cursor?.isExhausted) {
    return done({ startIndex: start, isExhausted: true, stopReason: "exhausted" });
  }

  let active = queries;
  for (;;) {
    const remaining = input.maxPerRun - items.length;
    const maxResults = Math.min(GOOGLE_BOOKS_PAGE_MAX, Math.floor(remaining / active.length));
    if (maxResults < 1) {
      // What is left cannot give every active query one item: stopping keeps them in lockstep.
      log.stoppedMaxPerRun(items.length, input.maxPerRun, start);
      return done({ startIndex: start, isExhausted: false, stopReason: "max_per_run" });
    }
    pages++;
    /** Next position of each query still active after its call this round. */
    const reached = new Map<string, number>();
    let furthest = start;
    let maxTotal = 0;
    let gotAny = false;
    for (const [index, q] of active.entries()) {
      if (signal?.aborted) {
        log.stoppedError(start, signal.reason);
        return done({ startIndex: start, isExhausted: false, stopReason: "error" }, signal.reason);
      }
      // One request counts once against the quota, however many attempts its retries took.
      if (!(await quota.tryReserve())) {
        log.stoppedQuota(start, "budget");
        return done({ startIndex: start, isExhausted: false, stopReason: "quota" });
      }
      let page: Awaited<ReturnType<FetchPage>>;
      try {
        requests++;
        page = await fetchPage({ q, startIndex: start, maxResults }, signal);
      } catch (err) {
        // Mid-round stops keep `start`: the failed query (and any after it) has not moved.
        if (err instanceof QuotaExceededError) {
          await quota.markSpent();
          log.stoppedQuota(start, "api");
          return done({ startIndex: start, isExhausted: false, stopReason: "quota" });
        }
        log.stoppedError(start, err);
        return done({ startIndex: start, isExhausted: false, stopReason: "error" }, err);
      }
      // The schema lets a page without items through only in the documented empty shape.
      const got = isEmptyAnswer(page.body) ? [] : (page.body.items ?? []);
      for (const volume of got) items.push({ volume, query: q });
      const total = page.body.totalItems;
      log.page(pages, start, got.length, total, { text: q, index, count: active.length });
      maxTotal = Math.max(maxTotal, total);
      furthest = Math.max(furthest, start + got.length);
      gotAny ||= got.length > 0;
      if (!checkExhaustion(true, total, start, got.length)) reached.set(q, start + got.length);
    }

    const stillActive = active.filter((q) => reached.has(q));
    const next =
      stillActive.length > 0
        ? Math.min(...stillActive.map((q) => reached.get(q) ?? start))
        : furthest;
    if (items.length >= input.maxPerRun) {
      log.stoppedMaxPerRun(items.length, input.maxPerRun, next);
      return done({ startIndex: next, isExhausted: false, stopReason: "max_per_run" });
    }
    if (stillActive.length === 0) {
      log.exhausted(next, maxTotal, !gotAny);
      return done({ startIndex: next, isExhausted: true, stopReason: "exhausted" });
    }
    start = next;
    active = stillActive;
  }
}
