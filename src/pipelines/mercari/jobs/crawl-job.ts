import type { JobContext, JobResult } from "tidemark";
import { typed } from "tidemark/kit";
import type { MercariCrawlParams } from "../params.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { enqueueCrawlMessages } from "../stages/list/send-messages.ts";
import type { MercariTables } from "../tables.ts";

/**
 * `mercari.crawl` (cron): one listCrawl message per enabled product on the crawl queue, sent
 * in one batch; the workers do the crawling. A product already waiting is not queued twice.
 */
export async function runCrawlJob(ctx: JobContext, params: MercariCrawlParams): Promise<JobResult> {
  const products = new ProductRepo(typed<MercariTables>(ctx.db));
  const targets = await products.crawlTargets(params.product_id);
  if (targets.length === 0) {
    return { status: "skipped", summary: { products: 0 }, message: "no enabled product" };
  }
  if (ctx.dryRun) return { summary: { products: targets.length, would_enqueue: targets.length } };
  const queue = await ctx.openQueue();
  try {
    const sent = await enqueueCrawlMessages(
      queue,
      targets.map((p) => ({ type: "listCrawl", productId: p.id })),
    );
    return { summary: { products: targets.length, ...sent } };
  } finally {
    await queue.close();
  }
}
