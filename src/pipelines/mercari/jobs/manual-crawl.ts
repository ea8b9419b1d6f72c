import type { PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import type { MercariClient } from "../client/types.ts";
import { crawlRepos } from "../repos/crawl-repos.ts";
import type { MercariSettings } from "../settings.ts";
import { crawlContext } from "../stages/list/crawl-context.ts";
import { type ListSummary, runListPhase } from "../stages/list/list-phase.ts";
import type { CrawlOutbox } from "../stages/list/send-messages.ts";
import type { MercariTables } from "../tables.ts";

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
  // One set of repositories for the whole crawl, every product included. The products are read
  // first: an unknown product is refused before a queue is opened for nothing.
  const repos = crawlRepos(typed<MercariTables>(services.db), services.clock);
  const targets = await repos.products.crawlTargets(productId);
  return withOutbox(operation, async (outbox) => {
    const crawl = crawlContext(services, outbox, operation.client, repos);
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
