import { z } from "zod";

/** Rakuten genre id (0 = all genres). */
const genreId = z.number().int().min(0).max(999_999_999);
/** Rakuten tag id. */
const tagId = z.number().int().min(1).max(999_999_999);
/** `shop:1234`: the shop code, a colon, the shop's own item id. */
const itemCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]+:[A-Za-z0-9_.-]+$/, "must be an item code like shop:1234");

/** Shared by every entity job: how many target failures a run tolerates, and its throughput. */
const etlParams = {
  max_failure_rate: z
    .number()
    .min(0)
    .max(1)
    .default(0.05)
    .describe("the run ends failed (exit 1) when more than this share of targets failed"),
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(8)
    .describe("requests in flight at once (the shared rate limit still applies)"),
  batch_size: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(200)
    .describe("targets per ledger read and commit"),
};

/** `rakuten.ranking`: the genres whose rankings are followed. */
export const rankingParams = z.strictObject({
  genre_ids: z
    .array(genreId)
    .min(1)
    .max(1000)
    .describe("genres whose ranking is fetched (0 = all genres)"),
  ...etlParams,
});
export const rankingExample = { genre_ids: [0, 100227], max_failure_rate: 0.05 };

/** `rakuten.item`: items of the current rankings plus listed item codes. */
export const itemParams = z.strictObject({
  genre_ids: z
    .array(genreId)
    .max(1000)
    .optional()
    .describe("rankings whose items are fetched (default: every genre with a stored ranking)"),
  item_codes: z
    .array(itemCode)
    .max(100_000)
    .default([])
    .describe("item codes fetched besides the ranked items"),
  ...etlParams,
});
export const itemExample = {
  genre_ids: [0],
  item_codes: ["sapporo-gift:10000"],
  max_failure_rate: 0.05,
};

/** `rakuten.genre`: genres of the items saved today, plus listed ones. */
export const genreParams = z.strictObject({
  genre_ids: z
    .array(genreId)
    .max(1000)
    .default([])
    .describe("genres fetched besides those of the items saved today"),
  ...etlParams,
});
export const genreExample = { genre_ids: [], max_failure_rate: 0.05 };

/** `rakuten.tag`: tags of the items saved today, plus listed ones. */
export const tagParams = z.strictObject({
  tag_ids: z
    .array(tagId)
    .max(1000)
    .default([])
    .describe("tags fetched besides those of the items saved today"),
  ...etlParams,
});
export const tagExample = { tag_ids: [], max_failure_rate: 0.05 };

/** `rakuten.is-active`: no params. */
export const isActiveParams = z.strictObject({});
export const isActiveExample = {};

export type RankingParams = z.output<typeof rankingParams>;
export type ItemParams = z.output<typeof itemParams>;
export type GenreParams = z.output<typeof genreParams>;
export type TagParams = z.output<typeof tagParams>;

/** `rakuten.reapply`: re-apply one entity's pending staging rows from the raw store. */
export const reapplyParams = z.strictObject({
  entity: z
    .enum(["ranking", "item", "genre", "tag"])
    .describe(
      "the entity whose staging rows not applied by its current apply version are re-applied",
    ),
  ...etlParams,
  // A re-apply reads the raw store and calls no API: its concurrency is about raw reads.
  concurrency: etlParams.concurrency.describe(
    "raw documents read at once, at least (a re-apply makes no API request)",
  ),
});
export const reapplyExample = { entity: "item", max_failure_rate: 0.05 };
export type ReapplyParams = z.output<typeof reapplyParams>;

/** `rakuten.embedding-source`: rebuilds the text each item is embedded from. */
export const embeddingSourceParams = z.strictObject({
  batch_size: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(500)
    .describe("items read and compared per commit"),
});
export const embeddingSourceExample = { batch_size: 500 };

/** `rakuten.embedding`: embeds the items whose source or model changed. */
export const embeddingParams = z.strictObject({
  max_failure_rate: z
    .number()
    .min(0)
    .max(1)
    .default(0.05)
    .describe("the run ends failed (exit 1) when more than this share of items failed"),
});
export const embeddingExample = { max_failure_rate: 0.05 };

export type EmbeddingSourceParams = z.output<typeof embeddingSourceParams>;
export type EmbeddingParams = z.output<typeof embeddingParams>;
