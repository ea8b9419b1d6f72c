import { countBlocked } from "../../client/blocked.ts";
import { isMercariBlocked } from "../../client/types.ts";
import type { ProductView } from "../../repos/product-schemas.ts";
import type { CrawlContext } from "./crawl-context.ts";
import { crawlMercariList, type ListCrawlOutcome, type ListCrawlPlan } from "./crawl-list.ts";
import { syncForExistence, syncForSeller, syncForSoldOutAt } from "./detail-checks.ts";
import { HitSorter } from "./hit-sorter.ts";
import { type MatchRow, settingMatcher } from "./match.ts";
import { FLUSH_ROWS, PageWriter } from "./page-writer.ts";
import { acquireProductLease, type ProductLease } from "./product-lease.ts";
import type { EnqueueCount } from "./send-messages.ts";

/** What one product's search phase did. */
export interface ListSummary {
  product_id: number;
  /** No stored result matched the setting: every page up to first_run_max_pages was read. */
  first_run: boolean;
  pages: number;
  /** Distinct listings the pages held (counted, never taken from Mercari's numFound). */
  found: number;
  /** Mercari's `numFound` on the first page: an estimate, often above `found`. */
  num_found_estimate: number | null;
  /** Hits that show no price (Mercari's placeholder): not stored, never a price observation. */
  no_price: number;
  /** Hits whose price lies outside the setting's range (not stored). */
  not_matching: number;
  inserted: number;
  updated: number;
  /** Rows inspect deleted: found under another setting, price out of range, or now no price. */
  deleted: number;
  existence_checks: EnqueueCount;
  sold_out_checks: EnqueueCount;
  /** Detail checks sent for rows whose seller (a Shops hit's shop) is not known yet. */
  seller_checks: EnqueueCount;
}

/**
 * The search phase of one product (the listCrawl message, and the manual crawl), top-down:
 * take the product's lease → plan the search → read it page by page, the page writer upserting
 * every FLUSH_ROWS matching rows (each write followed by the sold-date checks it implies) →
 * the last write with inspect → the existence, sold-date and seller checks. Every write goes
 * through a fenced commit under the lease, so a crawl that lost it writes nothing more. A
 * blocked search throws MercariBlockedError: nothing inspected, checked or deleted (pages
 * written before a block part-way through a long first crawl stay; they are true).
 */
export async function runListPhase(
  ctx: CrawlContext,
  productId: number,
  signal?: AbortSignal,
  flushRows = FLUSH_ROWS,
): Promise<ListSummary> {
  const product = await ctx.repos.products.get(productId);
  const lease = await acquireProductLease(ctx, productId, signal);
  try {
    return await crawlAndSync(ctx, product, lease, flushRows);
  } finally {
    await lease.release();
  }
}

async function crawlAndSync(
  ctx: CrawlContext,
  product: ProductView,
  lease: ProductLease,
  flushRows: number,
): Promise<ListSummary> {
  const matches = settingMatcher(product);
  const plan = await planSearch(ctx, product, matches);
  const writer = new PageWriter(ctx, product.id, plan.firstRun, lease.commit, flushRows);
  const hits = new HitSorter(product, writer);
  const crawl = await readSearch(ctx, product.id, plan, lease.signal, writer, hits);
  const deleted = await writer.finish({ matches, seenUnfit: [hits.noPrice, hits.outOfRange] });
  const existence = await syncForExistence(ctx, product.id, crawl.items);
  const soldOut = await syncForSoldOutAt(ctx, product.id, writer.sent);
  const seller = await syncForSeller(ctx, product.id, writer.sent);
  return {
    product_id: product.id,
    first_run: plan.firstRun,
    pages: crawl.pages,
    found: crawl.items.length,
    num_found_estimate: crawl.numFoundEstimate,
    no_price: hits.noPrice.size,
    not_matching: hits.outOfRange.size,
    inserted: writer.inserted,
    updated: hits.kept - writer.inserted,
    deleted,
    existence_checks: existence,
    sold_out_checks: {
      enqueued: writer.soldOutChecks.enqueued + soldOut.enqueued,
      already_waiting: writer.soldOutChecks.already_waiting + soldOut.already_waiting,
    },
    seller_checks: seller,
  };
}

/** What the search reads: every page up to the cap on a first run, pages_per_run later. */
async function planSearch(
  ctx: CrawlContext,
  product: ProductView,
  matches: (row: MatchRow) => boolean,
): Promise<ListCrawlPlan & { firstRun: boolean }> {
  // Rows found under an older setting (keyword, category, range, exclude keyword) say nothing
  // about this search: without a matching row, an empty search is believable (no block;
  // inspect removes the stale rows) and every page is read, as on a first crawl.
  const hadResults = (await ctx.repos.results.matchFields(product.id)).some(matches);
  // An interrupted first crawl left its marker: it has not read every page yet.
  const firstRun = !hadResults || (await ctx.repos.firstCrawl.unfinished(product.id));
  return {
    keyword: product.keyword,
    excludeKeyword: product.exclude_keyword,
    categoryId: product.category_id,
    minPrice: product.min_price,
    maxPrice: product.max_price,
    maxPages: firstRun ? ctx.settings.firstRunMaxPages : ctx.settings.pagesPerRun,
    pageSize: ctx.settings.pageSize,
    hadResults,
    firstRun,
  };
}

/** Reads the search, each page's hits sorted and handed to the page writer as they come. */
async function readSearch(
  ctx: CrawlContext,
  productId: number,
  plan: ListCrawlPlan,
  signal: AbortSignal,
  writer: PageWriter,
  hits: HitSorter,
): Promise<ListCrawlOutcome> {
  try {
    return await crawlMercariList(ctx.client, plan, signal, hits.add);
  } catch (err) {
    // A write in flight ends before the failure is reported (and the lease released).
    await writer.settle().catch(() => undefined);
    if (isMercariBlocked(err)) {
      countBlocked("list", err.reason);
      ctx.logger.warn(
        { product_id: productId, reason: err.reason },
        `mercari blocked the search of product ${productId}: no inspect, no checks, nothing deleted`,
      );
    }
    throw err;
  }
}
