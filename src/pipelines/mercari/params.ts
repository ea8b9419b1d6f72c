import { z } from "zod";

/** Params of a `mercari.crawl` job: which products it enqueues (default every enabled one). */
export const mercariCrawlParams = z.strictObject({
  product_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("only this product (default: every product whose setting is enabled)"),
});

/** Validated `mercari.crawl` params. */
export type MercariCrawlParams = z.output<typeof mercariCrawlParams>;

/** A ready `mercari.crawl` job: every enabled product, hourly in the starter config. */
export const mercariCrawlExample = {};

/** The queue's name: one queue for both message kinds (docs/pipelines/mercari.md). */
export const MERCARI_QUEUE = "mercari-crawl";

/**
 * A message on the crawl queue: crawl a product's search pages, or check one stored listing's
 * detail page.
 */
export const crawlQueueMessage = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("listCrawl"), productId: z.number().int().positive() }),
  z.strictObject({
    type: z.literal("syncDetail"),
    mercariCrawlResultId: z.number().int().positive(),
    // The row's Mercari id, which never changes: spares the handler a read (optional, so a
    // message without it is still handled).
    externalId: z.string().min(1).optional(),
  }),
]);

/** A validated crawl queue message. */
export type CrawlQueueMessage = z.output<typeof crawlQueueMessage>;
