import { openQueue, type Queue, type Runtime, typed } from "../../../engine/index.ts";
import type { MercariClient } from "../client/types.ts";
import { mercariDeps } from "../deps-factory.ts";
import { type ListSummary, runListPhase } from "../list/list-phase.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { ResultQueries, type ResultsQuery, type ResultView } from "../repos/result-queries.ts";
import type { MercariTables } from "../tables.ts";
import { priceTrend, type TrendBucket, trendWindow } from "../trend/price-trend.ts";

/** What the manual crawl and the results views need: a runtime and, optionally, an open queue. */
export interface OperationServices {
  readonly runtime: Runtime;
  readonly queue?: Queue;
  /** A client to use instead of the configured one (tests, the demo). */
  readonly client?: MercariClient;
}

/**
 * The manual crawl (`POST /api/crawl/execute`, `tidemark mercari crawl`): the search phase of
 * one product, or of every enabled product one after another, synchronously; the detail checks
 * it enqueues are left to the workers. A block throws MercariBlockedError at once.
 */
export async function executeCrawl(
  services: OperationServices,
  productId?: number,
): Promise<{ products: ListSummary[] }> {
  const { runtime } = services;
  const repo = new ProductRepo(typed<MercariTables>(runtime.db));
  const targets = productId === undefined ? await repo.enabled() : [await repo.get(productId)];
  const queue = services.queue ?? (await openQueue(runtime));
  try {
    const deps = mercariDeps(runtime, queue, services.client);
    const products: ListSummary[] = [];
    for (const p of targets) products.push(await runListPhase(deps, p.id));
    return { products };
  } finally {
    if (!services.queue) await queue.close();
  }
}

/** A product's stored results, filtered and paged (NotFoundError for an unknown product). */
export async function productResults(
  runtime: Runtime,
  productId: number,
  query: ResultsQuery,
): Promise<{
  product_id: number;
  total: number;
  limit: number;
  offset: number;
  items: ResultView[];
}> {
  const db = typed<MercariTables>(runtime.db);
  await new ProductRepo(db).get(productId);
  const page = await new ResultQueries(db).results(productId, query);
  return { product_id: productId, limit: query.limit, offset: query.offset, ...page };
}

/** The cheapest on-sale listings of a product. */
export async function cheapestResults(
  runtime: Runtime,
  productId: number,
  limit: number,
): Promise<{ product_id: number; items: ResultView[] }> {
  const db = typed<MercariTables>(runtime.db);
  await new ProductRepo(db).get(productId);
  return { product_id: productId, items: await new ResultQueries(db).cheapest(productId, limit) };
}

/** Note shown with every price trend: what the sold date is. */
export const TREND_NOTE =
  "sold listings by sold date; the sold date is approximated from Mercari's `updated` time of the sold item, which also moves on edits";

/** Sold prices per day or week: count, min, p25, median, p75, max. */
export async function productTrend(
  runtime: Runtime,
  productId: number,
  query: { from?: string; to?: string; bucket: "day" | "week" },
): Promise<{
  product_id: number;
  from: string;
  to: string;
  bucket: "day" | "week";
  note: string;
  buckets: TrendBucket[];
}> {
  const db = typed<MercariTables>(runtime.db);
  await new ProductRepo(db).get(productId);
  const window = trendWindow(runtime.clock.now(), query.from, query.to);
  const sold = await new ResultQueries(db).soldPrices(productId, window.from, window.to);
  return {
    product_id: productId,
    ...window,
    bucket: query.bucket,
    note: TREND_NOTE,
    buckets: priceTrend(sold, query.bucket),
  };
}
