import type { RouteInput, RouteOutput, RouteServices, RouteSpec } from "tidemark";
import { z } from "zod";
import { productCreateInput, productUpdateInput, productView } from "./repos/product-schemas.ts";
import {
  cheapestQuery,
  cheapestResponse,
  executeBody,
  executeResponse,
  productIdParams,
  resultsParams,
  resultsQuery,
  resultsResponse,
  SOLD_OUT_AT_NOTE,
  trendQuery,
  trendResponse,
} from "./routes/schemas.ts";

type Handlers = typeof import("./routes/handlers.ts");

/** Loads the handlers module on first use (the definition stays light). */
function lazy(name: keyof Handlers) {
  return async (input: RouteInput, services: RouteServices): Promise<RouteOutput> => {
    const handlers = await import("./routes/handlers.ts");
    return handlers[name](input, services);
  };
}

/** What a blocked crawl answers (502): `{"error":"blocked"}`, with why. */
const blockedResponse = z.object({
  error: z.literal("blocked"),
  reason: z.string(),
  message: z.string(),
});

const deleted = z.object({ id: z.number().int(), results_deleted: z.number().int() });

/**
 * The mercari API: the manual crawl and its results at the paths docs/pipelines/mercari.md lists
 * (`/api/crawl/…`), products and their settings, price trend and cheapest listings under
 * `/api/mercari/products…`. All behind the server's bearer auth and in /openapi.json.
 */
export const mercariRoutes: readonly RouteSpec[] = [
  {
    method: "post",
    path: "/crawl/execute",
    mount: "api",
    summary:
      "Mercari: crawl the search of one product (productId) or of every enabled product now; detail checks go to the queue. 502 {error: blocked} when Mercari blocks the crawler (nothing is deleted)",
    body: executeBody,
    response: executeResponse,
    errors: {
      404: { description: "No such product" },
      409: { description: "A crawl of this product is already running (another worker or call)" },
      502: {
        description: "Mercari blocked the crawler (nothing is deleted)",
        schema: blockedResponse,
      },
    },
    handle: lazy("execute"),
  },
  {
    method: "get",
    path: "/crawl/results/{productId}",
    mount: "api",
    summary: `Mercari: a product's stored listings (status, price range, sort, paging). sold_out_at is ${SOLD_OUT_AT_NOTE}`,
    params: resultsParams,
    query: resultsQuery,
    response: resultsResponse,
    handle: lazy("results"),
  },
  {
    method: "get",
    path: "/products",
    summary: "Mercari products with their crawl settings",
    response: z.object({ products: z.array(productView) }),
    handle: lazy("listProducts"),
  },
  {
    method: "post",
    path: "/products",
    summary: "Create a product with its crawl setting (201)",
    body: productCreateInput,
    response: productView,
    status: 201,
    handle: lazy("createProduct"),
  },
  {
    method: "get",
    path: "/products/{id}",
    summary: "One product with its crawl setting",
    params: productIdParams,
    response: productView,
    handle: lazy("getProduct"),
  },
  {
    method: "patch",
    path: "/products/{id}",
    summary: "Change a product's name or crawl setting (null clears an optional field)",
    params: productIdParams,
    body: productUpdateInput,
    response: productView,
    handle: lazy("updateProduct"),
  },
  {
    method: "post",
    path: "/products/{id}/enable",
    summary: "Enable a product's crawl setting",
    params: productIdParams,
    response: productView,
    handle: lazy("enableProduct"),
  },
  {
    method: "post",
    path: "/products/{id}/disable",
    summary: "Disable a product's crawl setting (its results stay)",
    params: productIdParams,
    response: productView,
    handle: lazy("disableProduct"),
  },
  {
    method: "delete",
    path: "/products/{id}",
    summary: "Delete a product with its setting and every stored listing",
    params: productIdParams,
    response: deleted,
    handle: lazy("deleteProduct"),
  },
  {
    method: "get",
    path: "/products/{id}/price-trend",
    summary: `Sold prices per day or week (count, min, p25, median, p75, max) by sold date; the sold date is ${SOLD_OUT_AT_NOTE}`,
    params: productIdParams,
    query: trendQuery,
    response: trendResponse,
    handle: lazy("priceTrend"),
  },
  {
    method: "get",
    path: "/products/{id}/cheapest",
    summary: "The cheapest listings on sale",
    params: productIdParams,
    query: cheapestQuery,
    response: cheapestResponse,
    handle: lazy("cheapest"),
  },
];
