import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import { AlreadyRunningError, startHeartbeat } from "../../../engine/index.ts";
import { isMercariBlocked, type SearchItem } from "../client/types.ts";
import type { MercariDeps } from "../deps.ts";
import { countBlocked } from "../monitoring/blocked.ts";
import type { ProductView } from "../product-schemas.ts";
import { detailMessage, type EnqueueCount, enqueueCrawlMessages } from "../queue-send.ts";
import { CrawlResultRepo, type ResultInput } from "../repos/crawl-result-repo.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { type MercariTables, SELLER_TYPE, SELLING_STATUS } from "../tables.ts";
import { crawlMercariList, type ListCrawlPlan } from "./crawl-list.ts";
import { settingMatcher } from "./match.ts";
import {
  clearFirstCrawl,
  type FencedCommit,
  FLUSH_ROWS,
  firstCrawlUnfinished,
  PageWriter,
} from "./page-writer.ts";

/** What one product's search phase did. */
export interface ListSummary {
  product_id: number;
  /** No stored result matched the setting: every page up to first_run_max_pages was read. */
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
 * inspect: physically deletes every stored row of the product that no longer matches its
 * setting (the setting changed, or a listing was renamed). Runs in the crawl's last fenced
 * transaction, once the whole search is read.
 */
async function inspect(
  tx: Transaction<MercariTables>,
  productId: number,
  matches: (row: { name: string; price: number }) => boolean,
): Promise<number> {
  const repo = new CrawlResultRepo(tx);
  const stale = (await repo.matchFields(productId)).filter((r) => !matches(r)).map((r) => r.id);
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
  deps: MercariDeps,
  productId: number,
  signal?: AbortSignal,
  flushRows = FLUSH_ROWS,
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
    const commit: FencedCommit = (effect) => deps.leases.fencedCommit(lease, LEASE_TTL_MS, effect);
    return await crawlAndSync(deps, product, aborted, commit, flushRows);
  } finally {
    heartbeat.stop();
    await deps.leases.release(key, holder);
  }
}

/** What the search reads: every page up to the cap on a first run, pages_per_run later. */
function listPlan(
  deps: MercariDeps,
  product: ProductView,
  firstRun: boolean,
  hadResults: boolean,
): ListCrawlPlan {
  return {
    keyword: product.keyword,
    categoryId: product.category_id,
    minPrice: product.min_price,
    maxPrice: product.max_price,
    maxPages: firstRun ? deps.settings.firstRunMaxPages : deps.settings.pagesPerRun,
    pageSize: deps.settings.pageSize,
    hadResults,
  };
}

async function crawlAndSync(
  deps: MercariDeps,
  product: ProductView,
  signal: AbortSignal,
  commit: FencedCommit,
  flushRows: number,
): Promise<ListSummary> {
  const matches = settingMatcher(product);
  // Rows stored under an older keyword or price range that this setting no longer matches say
  // nothing about this search: without a matching row, an empty search is believable (no
  // block; inspect removes the stale rows) and every page is read, as on a first crawl.
  const hadResults = (await new CrawlResultRepo(deps.db).matchFields(product.id)).some(matches);
  // An interrupted first crawl left its marker: it has not read every page yet.
  const firstRun = !hadResults || (await firstCrawlUnfinished(deps, product.id));
  const writer = new PageWriter(deps, product.id, firstRun, commit, flushRows);
  let upserted = 0;
  let crawl: Awaited<ReturnType<typeof crawlMercariList>>;
  try {
    crawl = await crawlMercariList(
      deps.client,
      listPlan(deps, product, firstRun, hadResults),
      signal,
      (fresh) => {
        const rows = fresh.map((i) => toResultInput(product.id, i)).filter(matches);
        upserted += rows.length;
        return writer.add(rows);
      },
    );
  } catch (err) {
    // A write in flight ends before the failure is reported (and the lease released).
    await writer.settle().catch(() => undefined);
    if (isMercariBlocked(err)) {
      countBlocked("list", err.reason);
      deps.logger.warn(
        { product_id: product.id, reason: err.reason },
        `mercari blocked the search of product ${product.id}: no inspect, no checks, nothing deleted`,
      );
    }
    throw err;
  }
  const deleted = await writer.finish(async (tx) => {
    const gone = await inspect(tx, product.id, matches);
    if (firstRun) await clearFirstCrawl(tx, deps, product.id);
    return gone;
  });
  const existence = await syncForExistence(deps, product.id, crawl.items);
  const soldOut = await syncForSoldOutAt(deps, product.id, writer.sent);
  return {
    product_id: product.id,
    first_run: firstRun,
    pages: crawl.pages,
    found: crawl.items.length,
    not_matching: crawl.items.length - upserted,
    inserted: writer.inserted,
    updated: upserted - writer.inserted,
    deleted,
    existence_checks: existence,
    sold_out_checks: {
      enqueued: writer.soldOutChecks.enqueued + soldOut.enqueued,
      already_waiting: writer.soldOutChecks.already_waiting + soldOut.already_waiting,
    },
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
  return enqueueCrawlMessages(deps.queue, absent.map(detailMessage));
}

/**
 * Sold rows without a sold date → one syncDetail each (the detail page dates it); rows in
 * `alreadySent` got theirs from the crawl's page writes.
 */
export async function syncForSoldOutAt(
  deps: Pick<MercariDeps, "db" | "queue">,
  productId: number,
  alreadySent: ReadonlySet<number> = new Set(),
): Promise<EnqueueCount> {
  const rows = (await new CrawlResultRepo(deps.db).soldWithoutDate(productId)).filter(
    (r) => !alreadySent.has(r.id),
  );
  return enqueueCrawlMessages(deps.queue, rows.map(detailMessage));
}
