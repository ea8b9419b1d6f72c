import {
  type MessageFinish,
  type Queue,
  type QueueHandlerContext,
  queueHandlerContext,
  type Runtime,
} from "../../engine/index.ts";
import type { MercariClient } from "./client/types.ts";
import { handleCrawlMessage } from "./jobs/queue-consumer.ts";
import { type CrawlQueueMessage, crawlQueueMessage, MERCARI_QUEUE } from "./params.ts";

/** What a drain handled. */
export interface DrainReport {
  handled: number;
  failed: number;
}

/**
 * Works the crawl queue in this process until nothing is queued or active (the demo; tests
 * that do not start worker processes). With `client`, messages use it instead of the
 * configured Mercari client. Gives up after `timeoutMs`.
 */
export async function drainCrawlQueue(
  runtime: Runtime,
  queue: Queue,
  options: {
    client?: MercariClient;
    concurrency?: number;
    timeoutMs?: number;
    /** Called while nothing is active (tests move a manual clock past retry backoffs here). */
    tick?: () => void;
  } = {},
): Promise<DrainReport> {
  const report: DrainReport = { handled: 0, failed: 0 };
  await queue.work(
    MERCARI_QUEUE,
    { concurrency: options.concurrency ?? 4, pollIntervalMs: 20 },
    async (message, signal, finish) => {
      const payload = crawlQueueMessage.parse(message.payload);
      // A deferred write that fails fails the message: counted as such, not as handled.
      const counted: MessageFinish = {
        defer: (work) =>
          finish.defer(
            work.catch((err: unknown) => {
              report.handled--;
              report.failed++;
              throw err;
            }),
          ),
      };
      try {
        await handle(runtime, queue, { message, signal, finish: counted }, payload, options.client);
        report.handled++;
      } catch (err) {
        report.failed++;
        throw err;
      }
    },
  );
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  try {
    for (;;) {
      const stats = (await queue.stats()).find((s) => s.queue === MERCARI_QUEUE);
      if (!stats || stats.queued + stats.active === 0) return report;
      if (Date.now() > deadline) {
        throw new Error(`crawl queue not drained: ${JSON.stringify(stats)}`);
      }
      if (stats.active === 0) options.tick?.();
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    await queue.stop();
  }
}

async function handle(
  runtime: Runtime,
  queue: Queue,
  delivery: Pick<QueueHandlerContext, "message" | "signal"> & { finish: MessageFinish },
  payload: CrawlQueueMessage,
  client: MercariClient | undefined,
): Promise<void> {
  const ctx = queueHandlerContext(runtime, queue, delivery);
  await handleCrawlMessage(ctx, payload, client);
}
