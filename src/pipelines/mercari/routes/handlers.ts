import type { RouteInput, RouteOutput, RouteServices } from "tidemark";
import { isoTimestamp, typed } from "tidemark/kit";
import { isMercariBlocked } from "../client/types.ts";
import { executeCrawl } from "../jobs/manual-crawl.ts";
import { crawlQueueHandler } from "../queue/handlers.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import type { ProductCreateInput, ProductUpdateInput } from "../repos/product-schemas.ts";
import { mercariServices } from "../stages/list/crawl-context.ts";
import type { CrawlOutbox } from "../stages/list/send-messages.ts";
import { cheapestResults, productResults, productTrend } from "../stages/results/result-views.ts";
import type { MercariTables } from "../tables.ts";
import type { ResultsQuery } from "./schemas.ts";

function products(services: RouteServices): ProductRepo {
  return new ProductRepo(typed<MercariTables>(services.services.db));
}

function now(services: RouteServices): string {
  return isoTimestamp(services.services.clock.now());
}

function idOf(input: RouteInput, key = "id"): number {
  return Number(input.params[key]);
}

/** POST /api/crawl/execute: 200 with the summary, 502 {"error":"blocked"} when blocked. */
export async function execute(input: RouteInput, services: RouteServices): Promise<RouteOutput> {
  const body = (input.body ?? {}) as { productId?: number };
  try {
    const pipeline = mercariServices(services.services);
    // The detail checks go to the server's own queue, the one its workers consume.
    const outbox: CrawlOutbox = {
      sendBatch: (_queue, items) => pipeline.sendBatch(crawlQueueHandler, items),
    };
    return { body: await executeCrawl({ services: pipeline, outbox }, body.productId) };
  } catch (err) {
    if (isMercariBlocked(err)) {
      return { status: 502, body: { error: "blocked", reason: err.reason, message: err.message } };
    }
    throw err;
  }
}

/** GET /api/crawl/results/{productId}. */
export async function results(input: RouteInput, services: RouteServices): Promise<RouteOutput> {
  const q = input.query as ResultsQuery;
  return { body: await productResults(services.services, idOf(input, "productId"), q) };
}

/** GET /api/mercari/products. */
export async function listProducts(_: RouteInput, services: RouteServices): Promise<RouteOutput> {
  return { body: { products: await products(services).list() } };
}

/** POST /api/mercari/products. */
export async function createProduct(
  input: RouteInput,
  services: RouteServices,
): Promise<RouteOutput> {
  const created = await products(services).create(input.body as ProductCreateInput, now(services));
  return { status: 201, body: created };
}

/** GET /api/mercari/products/{id}. */
export async function getProduct(input: RouteInput, services: RouteServices): Promise<RouteOutput> {
  return { body: await products(services).get(idOf(input)) };
}

/** PATCH /api/mercari/products/{id}. */
export async function updateProduct(
  input: RouteInput,
  services: RouteServices,
): Promise<RouteOutput> {
  const patch = input.body as ProductUpdateInput;
  return { body: await products(services).update(idOf(input), patch, now(services)) };
}

/** POST /api/mercari/products/{id}/enable. */
export async function enableProduct(
  input: RouteInput,
  services: RouteServices,
): Promise<RouteOutput> {
  return { body: await products(services).update(idOf(input), { enabled: true }, now(services)) };
}

/** POST /api/mercari/products/{id}/disable. */
export async function disableProduct(
  input: RouteInput,
  services: RouteServices,
): Promise<RouteOutput> {
  return { body: await products(services).update(idOf(input), { enabled: false }, now(services)) };
}

/** DELETE /api/mercari/products/{id}. */
export async function deleteProduct(
  input: RouteInput,
  services: RouteServices,
): Promise<RouteOutput> {
  const id = idOf(input);
  return { body: { id, ...(await products(services).remove(id)) } };
}

/** GET /api/mercari/products/{id}/price-trend. */
export async function priceTrend(input: RouteInput, services: RouteServices): Promise<RouteOutput> {
  const q = input.query as { from?: string; to?: string; bucket: "day" | "week" };
  return { body: await productTrend(services.services, idOf(input), q) };
}

/** GET /api/mercari/products/{id}/cheapest. */
export async function cheapest(input: RouteInput, services: RouteServices): Promise<RouteOutput> {
  const limit = Number((input.query as { limit: number }).limit);
  return { body: await cheapestResults(services.services, idOf(input), limit) };
}
