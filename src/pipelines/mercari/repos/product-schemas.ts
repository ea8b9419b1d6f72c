import { z } from "zod";

const price = z.number().int().min(0).max(100_000_000);
const keyword = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(200)
  .describe("search keyword; a listing matches when Mercari's search for it returns the listing");
const excludeKeyword = z
  .string()
  .trim()
  .max(200)
  .transform((v) => (v === "" ? null : v))
  .describe("words Mercari's search leaves out (accessories, junk); blank for none");

/** Refuses a price range whose min_price is above its max_price (names max_price). */
export function checkRange(
  p: { min_price?: number | null; max_price?: number | null },
  ctx: z.RefinementCtx,
): void {
  if (p.min_price != null && p.max_price != null && p.min_price > p.max_price) {
    ctx.addIssue({
      code: "custom",
      path: ["max_price"],
      message: `must be at least min_price (${p.min_price})`,
    });
  }
}

/** A new product with its crawl setting (API body, CLI options). */
export const productCreateInput = z
  .strictObject({
    name: z.string().trim().min(1, "must not be blank").max(200).describe("product name"),
    keyword,
    category_id: z.number().int().positive().nullable().optional().describe("Mercari category id"),
    exclude_keyword: excludeKeyword.nullable().optional(),
    min_price: price.nullable().optional().describe("lowest price in yen (inclusive)"),
    max_price: price.nullable().optional().describe("highest price in yen (inclusive)"),
    enabled: z.boolean().default(true).describe("crawled by mercari.crawl jobs"),
  })
  .superRefine(checkRange);

/** Validated new product. */
export type ProductCreateInput = z.output<typeof productCreateInput>;

/** Changes to a product or its setting; null clears an optional field. */
export const productUpdateInput = z
  .strictObject({
    name: z.string().trim().min(1, "must not be blank").max(200).optional(),
    keyword: keyword.optional(),
    category_id: z.number().int().positive().nullable().optional(),
    exclude_keyword: excludeKeyword.nullable().optional(),
    min_price: price.nullable().optional(),
    max_price: price.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine(checkRange);

/** Validated product changes. */
export type ProductUpdateInput = z.output<typeof productUpdateInput>;

/** A product with its setting, as the API and `product ls --json` show it. */
export const productView = z.object({
  id: z.number().int(),
  name: z.string(),
  keyword: z.string(),
  category_id: z.number().int().nullable(),
  exclude_keyword: z.string().nullable(),
  min_price: z.number().int().nullable(),
  max_price: z.number().int().nullable(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A product with its setting. */
export type ProductView = z.output<typeof productView>;
