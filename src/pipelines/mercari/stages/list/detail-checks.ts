import type { SearchItem } from "../../client/types.ts";
import type { RowRef } from "../../repos/crawl-result-repo.ts";
import type { CrawlContext } from "./crawl-context.ts";
import { detailMessage, type EnqueueCount, enqueueCrawlMessages } from "./send-messages.ts";

/** Sends one syncDetail per row, skipping rows in `alreadySent` (and noting those it sends). */
async function send(
  ctx: Pick<CrawlContext, "outbox">,
  rows: readonly RowRef[],
  alreadySent?: Set<number>,
): Promise<EnqueueCount> {
  const fresh = alreadySent ? rows.filter((r) => !alreadySent.has(r.id)) : rows;
  for (const r of fresh) alreadySent?.add(r.id);
  return enqueueCrawlMessages(ctx.outbox, fresh.map(detailMessage));
}

/** On-sale rows this crawl did not see → one syncDetail each (is it still there?). */
export async function syncForExistence(
  ctx: Pick<CrawlContext, "repos" | "outbox">,
  productId: number,
  crawled: readonly SearchItem[],
): Promise<EnqueueCount> {
  const seen = new Set(crawled.map((i) => i.id));
  const absent = (await ctx.repos.results.onSale(productId)).filter(
    (r) => !seen.has(r.external_id),
  );
  return send(ctx, absent);
}

/**
 * Sold rows without a sold date → one syncDetail each (the detail page dates it); rows in
 * `alreadySent` got theirs from the crawl's page writes.
 */
export async function syncForSoldOutAt(
  ctx: Pick<CrawlContext, "repos" | "outbox">,
  productId: number,
  alreadySent: Set<number> = new Set(),
): Promise<EnqueueCount> {
  return send(ctx, await ctx.repos.results.soldWithoutDate(productId), alreadySent);
}

/**
 * Rows whose seller is not known (a Shops hit: search names no shop) → one syncDetail each:
 * the product page names the shop. Rows in `alreadySent` have a detail check on its way.
 */
export async function syncForSeller(
  ctx: Pick<CrawlContext, "repos" | "outbox">,
  productId: number,
  alreadySent: Set<number> = new Set(),
): Promise<EnqueueCount> {
  return send(ctx, await ctx.repos.results.sellerUnknown(productId), alreadySent);
}
