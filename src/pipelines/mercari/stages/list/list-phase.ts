import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import { AlreadyRunningError } from "tidemark";
import { startHeartbeat } from "tidemark/kit";
import { countBlocked } from "../../client/blocked.ts";
import { isMercariBlocked, type SearchItem } from "../../client/types.ts";
import { CrawlResultRepo, type ResultInput } from "../../repos/crawl-result-repo.ts";
import { ProductRepo } from "../../repos/product-repo.ts";
import type { ProductView } from "../../repos/product-schemas.ts";
import { type MercariTables, SELLER_TYPE, SELLING_STATUS } from "../../tables.ts";
import type { CrawlContext } from "./crawl-context.ts";
import { crawlMercariList, type ListCrawlPlan } from "./crawl-list.ts";
import { syncForExistence, syncForSeller, syncForSoldOutAt } from "./detail-checks.ts";
import { type MatchRow, priceInRange, settingFingerprint, settingMatcher } from "./match.ts";
import {
  clearFirstCrawl,
  type FencedCommit,
  FLUSH_ROWS,
  firstCrawlUnfinished,
  PageWriter,
} from "./page-writer.ts";
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

const LEASE_TTL_MS = 60_000;

/** A priced search hit as a row of `mercari_crawl_results`, found under `fingerprint`. */
export function toResultInput(
  productId: number,
  item: SearchItem & { price: number },
  fingerprint: string,
): ResultInput {
  return {
    product_id: productId,
    external_id: item.id,
    name: item.name,
    price: item.price,
    selling_url: item.url,
    image_url: item.thumbnailUrl,
    selling_status: item.status === "on_sale" ? SELLING_STATUS.onSale : SELLING_STATUS.sold,
    seller_type: item.sellerType === "shop" ? SELLER_TYPE.shop : SELLER_TYPE.user,
    seller_id: item.sellerId,
    setting_fingerprint: fingerprint,
  };
}

/**
 * inspect: physically deletes every stored row of the product that no longer matches its
 * setting (found under another setting, or its price moved out of the range) and every row of
 * a listing this crawl saw without a price or priced out of the range. Runs in the crawl's last fenced transaction, once
 * the whole search is read.
 */
async function inspect(
  tx: Transaction<MercariTables>,
  productId: number,
  matches: (row: MatchRow) => boolean,
  seenUnfit: ReadonlyArray<ReadonlySet<string>>,
): Promise<number> {
  const repo = new CrawlResultRepo(tx);
  const stale = (await repo.matchFields(productId))
    .filter((r) => !matches(r) || seenUnfit.some((ids) => ids.has(r.external_id)))
    .map((r) => r.id);
  return repo.deleteIds(stale);
}

/**
 * The search phase of one product (the listCrawl message, and `POST /api/crawl/execute`):
 * crawl → upsert → inspect → syncForExistence → syncForSoldOutAt. A long search is upserted
 * every FLUSH_ROWS matching rows while it pages, each write followed by the sold-date checks
 * it implies; inspect and the existence checks wait for the complete search. Every write goes
 * through a fenced commit under the product's lease, so two crawls of one product never
 * interleave and a crawl that lost its lease writes nothing more. A blocked search throws
 * MercariBlockedError: nothing inspected, checked or deleted (pages written before a block
 * part-way through a long first crawl stay; they are true).
 */
export async function runListPhase(
  ctx: CrawlContext,
  productId: number,
  signal?: AbortSignal,
  flushRows = FLUSH_ROWS,
): Promise<ListSummary> {
  const product = await new ProductRepo(ctx.db).get(productId);
  const key = `mercari.crawl:product:${productId}`;
  const holder = `list_${randomBytes(6).toString("hex")}`;
  const lease = await ctx.leases.tryAcquire(key, holder, LEASE_TTL_MS);
  if (!lease) {
    const current = await ctx.leases.get(key);
    throw new AlreadyRunningError(`mercari crawl of product ${productId}`, current?.holder);
  }
  const lost = new AbortController();
  const heartbeat = startHeartbeat({
    leases: ctx.leases,
    key,
    holder,
    ttlMs: LEASE_TTL_MS,
    logger: ctx.logger,
    onLost: () => lost.abort(new Error(`lease ${key} lost`)),
  });
  try {
    const aborted = signal ? AbortSignal.any([signal, lost.signal]) : lost.signal;
    const commit: FencedCommit = (effect) => ctx.leases.fencedCommit(lease, LEASE_TTL_MS, effect);
    return await crawlAndSync(ctx, product, aborted, commit, flushRows);
  } finally {
    heartbeat.stop();
    await ctx.leases.release(key, holder);
  }
}

/** What the search reads: every page up to the cap on a first run, pages_per_run later. */
function listPlan(
  ctx: CrawlContext,
  product: ProductView,
  firstRun: boolean,
  hadResults: boolean,
): ListCrawlPlan {
  return {
    keyword: product.keyword,
    excludeKeyword: product.exclude_keyword,
    categoryId: product.category_id,
    minPrice: product.min_price,
    maxPrice: product.max_price,
    maxPages: firstRun ? ctx.settings.firstRunMaxPages : ctx.settings.pagesPerRun,
    pageSize: ctx.settings.pageSize,
    hadResults,
  };
}

/**
 * Sorts a crawl's hits: a hit without a price is no observation, a hit priced outside the
 * range no match (each counted, and its stored row, if any, deleted by inspect); every other
 * hit the search returned matches and becomes a row under the setting's fingerprint.
 */
class HitSorter {
  readonly noPrice = new Set<string>();
  readonly outOfRange = new Set<string>();
  kept = 0;
  readonly #fingerprint: string;

  constructor(
    private readonly product: ProductView,
    private readonly writer: PageWriter,
  ) {
    this.#fingerprint = settingFingerprint(product);
  }

  add = (fresh: readonly SearchItem[]): Promise<void> => {
    const rows: ResultInput[] = [];
    for (const item of fresh) {
      if (item.price === null) this.noPrice.add(item.id);
      else if (!priceInRange(this.product, item.price)) this.outOfRange.add(item.id);
      else
        rows.push(
          toResultInput(this.product.id, { ...item, price: item.price }, this.#fingerprint),
        );
    }
    this.kept += rows.length;
    return this.writer.add(rows);
  };
}

async function crawlAndSync(
  ctx: CrawlContext,
  product: ProductView,
  signal: AbortSignal,
  commit: FencedCommit,
  flushRows: number,
): Promise<ListSummary> {
  const matches = settingMatcher(product);
  // Rows found under an older setting (keyword, category, range, exclude keyword) say nothing
  // about this search: without a matching row, an empty search is believable (no block;
  // inspect removes the stale rows) and every page is read, as on a first crawl.
  const hadResults = (await new CrawlResultRepo(ctx.db).matchFields(product.id)).some(matches);
  // An interrupted first crawl left its marker: it has not read every page yet.
  const firstRun = !hadResults || (await firstCrawlUnfinished(ctx, product.id));
  const writer = new PageWriter(ctx, product.id, firstRun, commit, flushRows);
  const hits = new HitSorter(product, writer);
  let crawl: Awaited<ReturnType<typeof crawlMercariList>>;
  try {
    const plan = listPlan(ctx, product, firstRun, hadResults);
    crawl = await crawlMercariList(ctx.client, plan, signal, hits.add);
  } catch (err) {
    // A write in flight ends before the failure is reported (and the lease released).
    await writer.settle().catch(() => undefined);
    if (isMercariBlocked(err)) {
      countBlocked("list", err.reason);
      ctx.logger.warn(
        { product_id: product.id, reason: err.reason },
        `mercari blocked the search of product ${product.id}: no inspect, no checks, nothing deleted`,
      );
    }
    throw err;
  }
  const deleted = await writer.finish(async (tx) => {
    const gone = await inspect(tx, product.id, matches, [hits.noPrice, hits.outOfRange]);
    if (firstRun) await clearFirstCrawl(tx, ctx, product.id);
    return gone;
  });
  const existence = await syncForExistence(ctx, product.id, crawl.items);
  const soldOut = await syncForSoldOutAt(ctx, product.id, writer.sent);
  const seller = await syncForSeller(ctx, product.id, writer.sent);
  return {
    product_id: product.id,
    first_run: firstRun,
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
