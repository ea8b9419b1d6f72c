import type { PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { ProductRepo } from "../../repos/product-repo.ts";
import { ResultQueries, type ResultsQuery, type ResultView } from "../../repos/result-queries.ts";
import type { MercariTables } from "../../tables.ts";
import { priceTrend, type TrendBucket, trendWindow } from "./price-trend.ts";

/** What the results views read: the database and the clock. */
export type ViewServices = Pick<PipelineServices, "db" | "clock">;

/** The repositories one view request reads through, built once for it. */
function viewRepos(services: ViewServices) {
  const db = typed<MercariTables>(services.db);
  return { products: new ProductRepo(db), results: new ResultQueries(db) };
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
  const repos = viewRepos(services);
  await repos.products.get(productId);
  const page = await repos.results.results(productId, query);
  return { product_id: productId, limit: query.limit, offset: query.offset, ...page };
}

/** The cheapest on-sale listings of a product. */
export async function cheapestResults(
  services: ViewServices,
  productId: number,
  limit: number,
): Promise<{ product_id: number; items: ResultView[] }> {
  const repos = viewRepos(services);
  await repos.products.get(productId);
  return { product_id: productId, items: await repos.results.cheapest(productId, limit) };
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
  const repos = viewRepos(services);
  await repos.products.get(productId);
  const window = trendWindow(services.clock.now(), query.from, query.to);
  const sold = await repos.results.soldPrices(productId, window.from, window.to);
  return {
    product_id: productId,
    ...window,
    bucket: query.bucket,
    note: TREND_NOTE,
    buckets: priceTrend(sold, query.bucket),
  };
}
