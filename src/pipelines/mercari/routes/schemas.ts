import { z } from "zod";
import { checkRange } from "../repos/product-schemas.ts";
import { trendBoundMs } from "../stages/results/trend-bounds.ts";

/** The sold date's caveat, repeated wherever the API shows it. */
export const SOLD_OUT_AT_NOTE =
  "when the listing sold, approximated from Mercari's `updated` time of the sold item (set by a detail crawl; `updated` also moves on edits, so it can be later than the sale); null until a detail crawl ran";

/**
 * A whole number written in decimal digits, for path and query values. `z.coerce.number()`
 * would take "", " ", "0x10" and "1e3" (as 0, 0, 16 and 1000) and let OpenAPI say null is
 * allowed; only digits are converted here, anything else fails the number check and is a 400.
 */
export function decimal<S extends z.ZodNumber>(schema: S) {
  return z.preprocess(
    (v) => (typeof v === "string" && /^\d{1,16}$/.test(v) ? Number(v) : v),
    schema,
  );
}

/** A non-negative whole number (yen, offsets) in a query. */
const count = (): z.ZodNumber => z.number({ error: "expected a whole number" }).int().min(0);

const id = decimal(z.number({ error: "expected a positive whole number" }).int().positive());

/** `{id}` of a product route. */
export const productIdParams = z.object({ id: id.describe("product id") });
/** `{productId}` of a results route. */
export const resultsParams = z.object({ productId: id.describe("product id") });

/** Body of `POST /api/crawl/execute`: optional, as is its productId. */
export const executeBody = z
  .strictObject({
    productId: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("only this product (default: every enabled product)"),
  })
  .optional();

/** What the search phase of one product did. */
export const listSummaryView = z.object({
  product_id: z.number().int(),
  first_run: z.boolean(),
  pages: z.number().int(),
  found: z.number().int().describe("distinct listings the pages held (counted, not numFound)"),
  num_found_estimate: z
    .number()
    .int()
    .nullable()
    .describe("Mercari's numFound on the first page: an estimate, often above found"),
  no_price: z
    .number()
    .int()
    .describe("hits showing no price (Mercari's placeholder): not stored, no price observation"),
  not_matching: z.number().int().describe("hits not stored: price outside the setting's range"),
  inserted: z.number().int(),
  updated: z.number().int(),
  deleted: z
    .number()
    .int()
    .describe("rows inspect deleted: found under another setting, price out of range, no price"),
  existence_checks: z.object({ enqueued: z.number().int(), already_waiting: z.number().int() }),
  sold_out_checks: z.object({ enqueued: z.number().int(), already_waiting: z.number().int() }),
  seller_checks: z
    .object({ enqueued: z.number().int(), already_waiting: z.number().int() })
    .describe("detail checks of rows whose seller is unknown (Shops hits name no shop)"),
});

/** Answer of `POST /api/crawl/execute`. */
export const executeResponse = z.object({ products: z.array(listSummaryView) });

/** Sort orders of the results route (a leading `-` = descending). */
export const RESULT_SORTS = [
  "price",
  "-price",
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at",
  "sold_out_at",
  "-sold_out_at",
] as const;

/** Query of `GET /api/crawl/results/{productId}`. */
export const resultsQuery = z
  .object({
    status: z.enum(["on_sale", "sold"]).optional().describe("on_sale, or sold (trading included)"),
    min_price: decimal(count()).optional(),
    max_price: decimal(count()).optional(),
    sort: z.enum(RESULT_SORTS).default("-created_at").describe("a leading - sorts descending"),
    limit: decimal(count().min(1).max(500)).default(50),
    offset: decimal(count()).default(0),
  })
  .strict()
  .superRefine(checkRange);

/** Validated results query. */
export type ResultsQuery = z.output<typeof resultsQuery>;

/** One stored listing. */
export const resultView = z.object({
  id: z.number().int(),
  product_id: z.number().int(),
  external_id: z.string().describe("Mercari item id (m…) or Mercari Shops product id"),
  name: z.string(),
  price: z.number().int().describe("yen"),
  selling_url: z.string(),
  image_url: z.string(),
  selling_status: z.number().int().describe("1 on sale, 2 sold (trading counts as sold)"),
  status: z.enum(["on_sale", "sold"]),
  seller_type: z.number().int().describe("1 user, 2 Mercari Shops shop"),
  seller_id: z.string().nullable(),
  sold_out_at: z.string().nullable().describe(SOLD_OUT_AT_NOTE),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Answer of the results route. */
export const resultsResponse = z.object({
  product_id: z.number().int(),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  items: z.array(resultView),
});

function checkTrendRange(q: { from?: string; to?: string }, ctx: z.RefinementCtx): void {
  // An empty window would answer "nothing sold" when the bounds were swapped.
  if (q.from && q.to && trendBoundMs(q.from) >= trendBoundMs(q.to)) {
    ctx.addIssue({
      code: "custom",
      path: ["to"],
      message: `must be after from (${q.from}); to is exclusive`,
    });
  }
}

/**
 * A trend bound: a date, or a timestamp with `Z` or an offset (a Japanese user writes +09:00).
 * A timestamp without a zone names no single moment and is refused.
 */
const trendBound = () =>
  z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error:
      "expected a date (YYYY-MM-DD) or a timestamp with Z or an offset (2026-11-01T00:00:00+09:00)",
  });

/** Query of the price-trend route. */
export const trendQuery = z
  .object({
    from: trendBound().optional().describe("start (default: 30 days before to)"),
    to: trendBound().optional().describe("end, exclusive (default: now)"),
    bucket: z.enum(["day", "week"]).default("day").describe("week buckets start on Monday (UTC)"),
  })
  .strict()
  .superRefine(checkTrendRange);

/** One bucket of sold prices. */
export const trendBucketView = z.object({
  bucket: z.string().describe("YYYY-MM-DD: the day, or the Monday of the week (UTC)"),
  count: z.number().int(),
  min: z.number(),
  p25: z.number(),
  median: z.number(),
  p75: z.number(),
  max: z.number(),
});

/** Answer of the price-trend route. */
export const trendResponse = z.object({
  product_id: z.number().int(),
  from: z.string(),
  to: z.string(),
  bucket: z.enum(["day", "week"]),
  note: z.string(),
  buckets: z.array(trendBucketView),
});

/** Query of the cheapest route. */
export const cheapestQuery = z
  .object({ limit: decimal(count().min(1).max(100)).default(10) })
  .strict();

/** Answer of the cheapest route. */
export const cheapestResponse = z.object({
  product_id: z.number().int(),
  items: z.array(resultView),
});
