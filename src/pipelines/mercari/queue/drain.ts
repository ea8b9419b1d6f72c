import type { PipelineServices, Queue } from "tidemark";
import { type DrainReport, drainQueue } from "tidemark/kit";
import type { MercariClient } from "../client/types.ts";
import { handleCrawlMessage } from "./consumer.ts";
import { crawlQueueHandler } from "./handlers.ts";

/**
 * Works the crawl queue in this process until nothing is queued or active (the demo; tests
 * that do not start worker processes). With `client`, messages use it instead of the
 * configured Mercari client. Gives up after `timeoutMs`.
 */
export async function drainCrawlQueue(
  services: PipelineServices,
  queue: Queue,
  options: {
    client?: MercariClient;
    concurrency?: number;
    timeoutMs?: number;
    /** Called while nothing is active (tests move a manual clock past retry backoffs here). */
    tick?: () => void;
  } = {},
): Promise<DrainReport> {
  const { client, concurrency, timeoutMs, tick } = options;
  return drainQueue(services, queue, crawlQueueHandler, {
    handle: (ctx, payload) => handleCrawlMessage(ctx, payload, client),
    concurrency,
    timeoutMs,
    tick,
  });
}
