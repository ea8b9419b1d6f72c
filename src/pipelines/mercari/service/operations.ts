import type { PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import type { MercariClient } from "../client/types.ts";
import { crawlContext } from "../crawl-context.ts";
import { type ListSummary, runListPhase } from "../list/list-phase.ts";
import type { CrawlOutbox } from "../queue-send.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { ResultQueries, type ResultsQuery, type ResultView } from "../repos/result-queries.ts";
import type { MercariSettings } from "../settings.ts";
import type { MercariTables } from "../tables.ts";
import { priceTrend, type TrendBucket, trendWindow } from "../trend/price-trend.ts";

/** What the manual crawl needs: the pipeline's services and, optionally, where messages go. */
export interface OperationServices {
  readonly services: PipelineServices<MercariSettings>;
  /**
   * Where the detail checks go (an open queue: the demo's, a test's); absent: a queue opened
   * with `services.openQueue()` for the crawl and closed after it (the CLI, a route).
   */
  readonly outbox?: CrawlOutbox;
  /** A client to use instead of the configured one (tests, the demo). */
  readonly client?: MercariClient;
}

/** What the results views read: the database and the clock. */
export type ViewServices = Pick<PipelineServices, "db" | "clock">;

/**
 * The manual crawl (`POST /api/crawl/execute`, `tidemark mercari crawl`): the search phase of
 * one product, or of every enabled product one after another, synchronously; the detail checks
 * it enqueues are left to the workers. A block throws MercariBlockedError at once.
 */
export async function executeCrawl(
  operation: OperationServices,
  productId?: number,
): Promise<{ products: ListSummary[] }> {
  const { services } = operation;
  const repo = new ProductRepo(typed<MercariTables>(services.db));
  const targets = productId === undefined ? await repo.enabled() : [await repo.get(productId)];
  return withOutbox(operation, async (outbox) => {
    const crawl = crawlContext(services, outbox, operation.client);
    const products: ListSummary[] = [];
    for (const p of targets) products.push(await runListPhase(crawl, p.id));
    return { products };
  });
}

/** Runs `work` with the operation's outbox, or with a queue opened for it and closed after. */
async function withOutbox<T>(
  operation: OperationServices,
  work: (outbox: CrawlOutbox) => Promise<T>,
): Promise<T> {
  if (operation.outbox) return work(operation.outbox);
  const queue = await operation.services.openQueue();
  try {
    return await work(queue);
  } finally {
    await queue.close();
  }
}

/** A product's stored results, filtered and paged (NotFoundError for an unknown product). */
export async function productResults(
  services: ViewServices,
  productId: number,
  query: ResultsQuery,
): Promise<{
  product_id: number;
  total: number;
  limit: number;
  offset: number;
  items: ResultView[];
}> {
  const db = typed<MercariTables>(services.db);
  await new ProductRepo(db).get(productId);
  const page = await new ResultQueries(db).results(productId, query);
  return { product_id: productId, limit: query.limit, offset: query.offset, ...page };
}

/** The cheapest on-sale listings of a product. */
export async function cheapestResults(
  services: ViewServices,
  productId: number,
  limit: number,
): Promise<{ product_id: number; items: ResultView[] }> {
  const db = typed<MercariTables>(services.db);
  await new ProductRepo(db).get(productId);
  return { product_id: productId, items: await new ResultQueries(db).cheapest(productId, limit) };
}

/** Note shown with every price trend: what the sold date is. */
export const TREND_NOTE =
  "sold listings by sold date; the sold date is approximated from Mercari's `updated` time of the sold item, which also moves on edits";

/** Sold prices per day or week: count, min, p25, median, p75, max. */
export async function productTrend(
  services: ViewServices,
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
  const db = typed<MercariTables>(services.db);
  await new ProductRepo(db).get(productId);
  const window = trendWindow(services.clock.now(), query.from, query.to);
  const sold = await new ResultQueries(db).soldPrices(productId, window.from, window.to);
  return {
    product_id: productId,
    ...window,
    bucket: query.bucket,
    note: TREND_NOTE,
    buckets: priceTrend(sold, query.bucket),
  };
}
