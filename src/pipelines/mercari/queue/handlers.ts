import { defineQueueHandler } from "tidemark";
import { crawlQueueMessage, MERCARI_QUEUE } from "../params.ts";

/**
 * The crawl queue (`mercari-crawl`): listCrawl {productId} and syncDetail
 * {mercariCrawlResultId} messages: one queue, two message types (docs/pipelines/mercari.md).
 */
export const crawlQueueHandler = defineQueueHandler({
  name: MERCARI_QUEUE,
  description:
    "Mercari crawl messages: listCrawl (a product's search) and syncDetail (one listing)",
  payload: crawlQueueMessage,
  async handle(ctx, payload) {
    const { handleCrawlMessage } = await import("./consumer.ts");
    await handleCrawlMessage(ctx, payload);
  },
});
