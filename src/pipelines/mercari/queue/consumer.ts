import { PermanentQueueError, type QueueHandlerContext } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import type { MercariClient } from "../client/types.ts";
import { type CrawlQueueMessage, MERCARI_QUEUE } from "../params.ts";
import { readDetail } from "../stages/detail/sync-detail.ts";
import { crawlContext, mercariServices } from "../stages/list/crawl-context.ts";
import { runListPhase } from "../stages/list/list-phase.ts";
import { DETAIL_RETRY_LIMIT, LIST_RETRY_LIMIT } from "../stages/list/send-messages.ts";

/**
 * The crawl queue's consumer: a listCrawl message runs the product's search phase, a
 * syncDetail message checks one listing's detail page. A failure is retried with backoff; the
 * last one (dead letter) is reported to the failure webhook like a failed run.
 */
export async function handleCrawlMessage(
  ctx: QueueHandlerContext,
  message: CrawlQueueMessage,
  client?: MercariClient,
): Promise<void> {
  const crawl = crawlContext(mercariServices(ctx.services), ctx.queue, client);
  try {
    if (message.type === "listCrawl") {
      // Deleted after the message was sent (the cron had just fired): nothing left to crawl,
      // which is no failure to retry for half an hour and then report.
      if (!(await crawl.repos.products.find(message.productId))) {
        ctx.logger.info(`mercari list crawl of product ${message.productId}: product deleted`);
        return;
      }
      const summary = await runListPhase(crawl, message.productId, ctx.signal);
      ctx.logger.info({ summary }, `mercari list crawl of product ${message.productId} done`);
    } else {
      const write = await readDetail(
        crawl,
        message.mercariCrawlResultId,
        ctx.signal,
        message.externalId,
      );
      // The row's write commits while this worker slot fetches its next detail; the message
      // completes only once the write has (a failed write fails the message). The catch below
      // has returned by then, so a last failed write is reported here.
      ctx.defer(
        write().then(
          (outcome) =>
            ctx.logger.debug(
              { outcome },
              `mercari detail ${message.mercariCrawlResultId}: ${outcome}`,
            ),
          (err: unknown) => {
            if (isLastAttempt(ctx, message, err)) reportDeadLetter(ctx, message, err);
            throw err;
          },
        ),
      );
    }
  } catch (err) {
    if (isLastAttempt(ctx, message, err)) reportDeadLetter(ctx, message, err);
    throw err;
  }
}

function isLastAttempt(ctx: QueueHandlerContext, message: CrawlQueueMessage, err: unknown) {
  const limit = message.type === "listCrawl" ? LIST_RETRY_LIMIT : DETAIL_RETRY_LIMIT;
  return err instanceof PermanentQueueError || ctx.message.attempt > limit;
}

/** The failure webhook hears about a dead-lettered message as a failed run of the queue. */
function reportDeadLetter(ctx: QueueHandlerContext, message: CrawlQueueMessage, err: unknown) {
  const what =
    message.type === "listCrawl"
      ? `listCrawl of product ${message.productId}`
      : `syncDetail of result ${message.mercariCrawlResultId}`;
  ctx.services.reportRunEnded({
    runId: `msg_${ctx.message.id}`,
    jobName: `${MERCARI_QUEUE} queue`,
    jobType: `${MERCARI_QUEUE}.${message.type}`,
    status: "failed",
    startedAt: ctx.message.createdAt,
    finishedAt: isoTimestamp(ctx.clock.now()),
    error: `${what} dead-lettered after ${ctx.message.attempt} attempts: ${err instanceof Error ? err.message : String(err)}`,
    dryRun: false,
  });
}
