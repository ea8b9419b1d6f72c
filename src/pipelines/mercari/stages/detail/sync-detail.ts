import { isoTimestamp } from "tidemark/kit";
import { countBlocked } from "../../client/blocked.ts";
import { isMercariBlocked } from "../../client/types.ts";
import { SELLING_STATUS } from "../../tables.ts";
import type { CrawlContext } from "../list/crawl-context.ts";

/** What a detail check did to its row. */
export type DetailOutcome = "row_gone" | "deleted" | "no_price" | "on_sale" | "sold";

/**
 * The syncDetail message, in two halves: reads the listing's detail page (a regular item or a
 * Mercari Shops product, chosen by its id) and returns the write that brings its row in line, so
 * a queue worker can start its next fetch while the write commits (`ctx.defer`). Gone (Mercari's not-found answer:
 * RecordNotFoundException) → the row is deleted; on sale → price, name and status synced; sold or trading
 * → status sold and `sold_out_at` set from the item's `updated` time (an approximation: see the
 * API docs); a listing that shows no price (a placeholder) → the row is deleted, as it holds no
 * price observation any more; the seller is filled in when the page names it. Idempotent, so a redelivered message does no harm. A block throws (the message is
 * retried).
 */
export async function readDetail(
  ctx: Pick<CrawlContext, "repos" | "client" | "clock" | "logger">,
  mercariCrawlResultId: number,
  signal?: AbortSignal,
  knownExternalId?: string,
): Promise<() => Promise<DetailOutcome>> {
  const repo = ctx.repos.results;
  // A row's Mercari id never changes: a message that carries it spares this read. The write
  // below is a single statement keyed on the row id (a row deleted meanwhile is left gone).
  const externalId = knownExternalId ?? (await repo.externalIdOf(mercariCrawlResultId));
  if (externalId === undefined) return async () => "row_gone";
  const row = { id: mercariCrawlResultId, external_id: externalId };
  let detail: Awaited<ReturnType<CrawlContext["client"]["getDetail"]>>;
  try {
    detail = await ctx.client.getDetail(row.external_id, signal);
  } catch (err) {
    if (isMercariBlocked(err)) {
      countBlocked("detail", err.reason);
      ctx.logger.warn(
        { result_id: row.id, external_id: row.external_id, reason: err.reason },
        `mercari blocked the detail of ${row.external_id}: its row is left as it is`,
      );
    }
    throw err;
  }
  const now = isoTimestamp(ctx.clock.now());
  if (detail === "not_found") {
    return async () => ((await repo.deleteIds([row.id])) > 0 ? "deleted" : "row_gone");
  }
  if (detail.price === null) {
    // The listing shows no price (a placeholder): no price observation is left in its row.
    return async () => ((await repo.deleteIds([row.id])) > 0 ? "no_price" : "row_gone");
  }
  const sold = detail.status !== "on_sale";
  const changes = {
    name: detail.name,
    price: detail.price,
    selling_status: sold ? SELLING_STATUS.sold : SELLING_STATUS.onSale,
    ...(sold ? { sold_out_at: detail.updated } : {}),
    // The seller as the detail page names it (a Shops hit's shop is known only here).
    ...(detail.sellerId !== null ? { seller_id: detail.sellerId } : {}),
    // A running Shops time sale: its price holds until the sale ends.
    time_sale_until: detail.timeSaleUntil ?? null,
  };
  return async () => {
    const written = await repo.applyDetail(row.id, changes, now);
    return written ? (sold ? "sold" : "on_sale") : "row_gone";
  };
}
