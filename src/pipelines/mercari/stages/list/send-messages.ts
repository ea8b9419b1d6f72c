import type { SendOptions } from "tidemark";
import { type CrawlQueueMessage, MERCARI_QUEUE } from "../../params.ts";
import type { RowRef } from "../../repos/crawl-result-repo.ts";

/**
 * Per-message options: a singleton key per product or per row (a message already waiting is
 * not enqueued twice), and retries with exponential backoff before the dead letter. A blocked
 * search is retried later, so list crawls wait longer between attempts.
 */
export function messageOptions(message: CrawlQueueMessage): SendOptions {
  return message.type === "listCrawl"
    ? {
        singletonKey: `listCrawl:${message.productId}`,
        retryLimit: LIST_RETRY_LIMIT,
        retryDelaySeconds: 60,
        retryBackoff: true,
      }
    : {
        singletonKey: `syncDetail:${message.mercariCrawlResultId}`,
        retryLimit: DETAIL_RETRY_LIMIT,
        retryDelaySeconds: 30,
        retryBackoff: true,
      };
}

/** The syncDetail message of a stored row. */
export function detailMessage(row: RowRef): CrawlQueueMessage {
  return { type: "syncDetail", mercariCrawlResultId: row.id, externalId: row.external_id };
}

/** Retries of a listCrawl message after its first failure. */
export const LIST_RETRY_LIMIT = 5;
/** Retries of a syncDetail message after its first failure. */
export const DETAIL_RETRY_LIMIT = 3;

/** What a batch send did: messages queued, and duplicates of a waiting message dropped. */
export interface EnqueueCount {
  enqueued: number;
  already_waiting: number;
}

/** Where crawl messages go: an open queue (a worker's, a job's, the CLI's), sent in batches. */
export interface CrawlOutbox {
  sendBatch(
    queue: string,
    items: ReadonlyArray<{ payload: CrawlQueueMessage; options?: SendOptions }>,
  ): Promise<Array<string | null>>;
}

/** Sends the messages in batches (sendBatch) with their options. */
export async function enqueueCrawlMessages(
  queue: CrawlOutbox,
  messages: readonly CrawlQueueMessage[],
): Promise<EnqueueCount> {
  if (messages.length === 0) return { enqueued: 0, already_waiting: 0 };
  let enqueued = 0;
  // Bounded batches keep one statement's parameters within both engines' limits.
  for (let i = 0; i < messages.length; i += 500) {
    const part = messages.slice(i, i + 500);
    const ids = await queue.sendBatch(
      MERCARI_QUEUE,
      part.map((payload) => ({ payload, options: messageOptions(payload) })),
    );
    enqueued += ids.filter((id) => id !== null).length;
  }
  return { enqueued, already_waiting: messages.length - enqueued };
}
