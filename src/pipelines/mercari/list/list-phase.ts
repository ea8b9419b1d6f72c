import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import { AlreadyRunningError, isoTimestamp, startHeartbeat } from "../../../engine/index.ts";
import { isMercariBlocked, type SearchItem } from "../client/types.ts";
import type { MercariDeps } from "../deps.ts";
import { countBlocked } from "../monitoring/blocked.ts";
import type { ProductView } from "../product-schemas.ts";
import { type EnqueueCount, enqueueCrawlMessages } from "../queue-send.ts";
import { CrawlResultRepo, type ResultInput } from "../repos/crawl-result-repo.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { type MercariTables, SELLER_TYPE, SELLING_STATUS } from "../tables.ts";
import { crawlMercariList } from "./crawl-list.ts";
import { settingMatcher } from "./match.ts";

/** What one product's search phase did. */
export interface ListSummary {
  product_id: number;
  /** No stored results before: every page up to first_run_max_pages was read. */
  first_run: boolean;
  pages: number;
  found: number;
  /** Hits whose name or price does not match the setting (found through the description). */
  not_matching: number;
  inserted: number;
  updated: number;
  /** Rows inspect deleted because they no longer match the setting. */
  deleted: number;
  existence_checks: EnqueueCount;
  sold_out_checks: EnqueueCount;
}

const LEASE_TTL_MS = 60_000;

/** A search hit as a row of `mercari_crawl_results`. */
export function toResultInput(productId: number, item: SearchItem): ResultInput {
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
  };
}

/**
 * upsert + inspect in one fenced transaction: the bulk upsert of the hits that match the
 * setting (Mercari also finds listings through their description; those are not stored), then
 * the physical delete of every stored row of the product that no longer matches it (the
 * setting changed, or a listing was renamed).
 */
async function upsertAndInspect(
  tx: Transaction<MercariTables>,
  product: ProductView,
  items: readonly SearchItem[],
  now: string,
): Promise<{ inserted: number; upserted: number; deleted: number }> {
  const repo = new CrawlResultRepo(tx);
  const matches = settingMatcher(product);
  const rows = items.map((i) => toResultInput(product.id, i)).filter(matches);
  const { inserted } = await repo.upsert(rows, now);
  const stale = (await repo.matchFields(product.id)).filter((r) => !matches(r)).map((r) => r.id);
  const deleted = await repo.deleteIds(stale);
  return { inserted, upserted: rows.length, deleted };
}

/**
 * The search phase of one product (the listCrawl message, and `POST /api/crawl/execute`):
 * crawl → upsert → inspect → syncForExistence → syncForSoldOutAt. Writes go through a fenced
 * commit under the product's lease, so two crawls of one product never interleave. A blocked
 * search throws MercariBlockedError before anything is written or enqueued.
 */
export async function runListPhase(
  deps: MercariDeps,
  productId: number,
  signal?: AbortSignal,
): Promise<ListSummary> {
  const product = await new ProductRepo(deps.db).get(productId);
  const key = `mercari.crawl:product:${productId}`;
  const holder = `list_${randomBytes(6).toString("hex")}`;
  const lease = await deps.leases.tryAcquire(key, holder, LEASE_TTL_MS);
  if (!lease) {
    const current = await deps.leases.get(key);
    throw new AlreadyRunningError(`mercari crawl of product ${productId}`, current?.holder);
  }
  const lost = new AbortController();
  const heartbeat = startHeartbeat({
    leases: deps.leases,
    key,
    holder,
    ttlMs: LEASE_TTL_MS,
    logger: deps.logger,
    onLost: () => lost.abort(new Error(`lease ${key} lost`)),
  });
  try {
    const aborted = signal ? AbortSignal.any([signal, lost.signal]) : lost.signal;
    return await crawlAndSync(deps, product, aborted, (effect) =>
      deps.leases.fencedCommit(lease, LEASE_TTL_MS, effect),
    );
  } finally {
    heartbeat.stop();
    await deps.leases.release(key, holder);
  }
}

async function crawlAndSync(
  deps: MercariDeps,
  product: ProductView,
  signal: AbortSignal,
  commit: <T>(effect: (tx: Transaction<MercariTables>) => Promise<T>) => Promise<T>,
): Promise<ListSummary> {
  const results = new CrawlResultRepo(deps.db);
  const stored = await results.countFor(product.id);
  const firstRun = stored === 0;
  let crawl: Awaited<ReturnType<typeof crawlMercariList>>;
  try {
    crawl = await crawlMercariList(
      deps.client,
      {
        keyword: product.keyword,
        categoryId: product.category_id,
        minPrice: product.min_price,
        maxPrice: product.max_price,
        maxPages: firstRun ? deps.settings.firstRunMaxPages : deps.settings.pagesPerRun,
        pageSize: deps.settings.pageSize,
        hadResults: !firstRun,
      },
      signal,
    );
  } catch (err) {
    if (isMercariBlocked(err)) {
      countBlocked("list", err.reason);
      deps.logger.warn(
        { product_id: product.id, reason: err.reason },
        `mercari blocked the search of product ${product.id}: nothing written, inspected or deleted`,
      );
    }
    throw err;
  }
  const now = isoTimestamp(deps.clock.now());
  const { inserted, upserted, deleted } = await commit((tx) =>
    upsertAndInspect(tx, product, crawl.items, now),
  );
  const existence = await syncForExistence(deps, product.id, crawl.items);
  const soldOut = await syncForSoldOutAt(deps, product.id);
  return {
    product_id: product.id,
    first_run: firstRun,
    pages: crawl.pages,
    found: crawl.items.length,
    not_matching: crawl.items.length - upserted,
    inserted,
    updated: upserted - inserted,
    deleted,
    existence_checks: existence,
    sold_out_checks: soldOut,
  };
}

/** On-sale rows this crawl did not see → one syncDetail each (is it still there?). */
export async function syncForExistence(
  deps: Pick<MercariDeps, "db" | "queue">,
  productId: number,
  crawled: readonly SearchItem[],
): Promise<EnqueueCount> {
  const seen = new Set(crawled.map((i) => i.id));
  const absent = (await new CrawlResultRepo(deps.db).onSale(productId)).filter(
    (r) => !seen.has(r.external_id),
  );
  return enqueueCrawlMessages(
    deps.queue,
    absent.map((r) => ({ type: "syncDetail", mercariCrawlResultId: r.id })),
  );
}

/** Sold rows without a sold date → one syncDetail each (the detail page dates it). */
export async function syncForSoldOutAt(
  deps: Pick<MercariDeps, "db" | "queue">,
  productId: number,
): Promise<EnqueueCount> {
  const ids = await new CrawlResultRepo(deps.db).soldWithoutDate(productId);
  return enqueueCrawlMessages(
    deps.queue,
    ids.map((id) => ({ type: "syncDetail", mercariCrawlResultId: id })),
  );
}
