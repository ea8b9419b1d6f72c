import type { DemoContext, PipelineServices } from "tidemark";
import { formatTable, isoTimestamp, typed } from "tidemark/kit";
import type { MercariFake } from "../fake/mercari-fake.ts";
import { BRAND_NAMES } from "../fake/sample-groups.ts";
import { executeCrawl } from "../jobs/manual-crawl.ts";
import { drainCrawlQueue } from "../queue/drain.ts";
import { ProductRepo } from "../repos/product-repo.ts";
import { ResultQueries } from "../repos/result-queries.ts";
import type { MercariSettings } from "../settings.ts";
import { cheapestResults, productTrend } from "../stages/results/result-views.ts";
import type { MercariTables } from "../tables.ts";

/** The brand keyword of the demo (the fake names its listings in every spelling of it). */
export const DEMO_BRAND = "comme des garcons";

/** How many stored listings of a product are named with each spelling of the brand. */
async function spellings(
  services: PipelineServices,
  productId: number,
): Promise<Array<[string, number]>> {
  const names = await new ResultQueries(typed<MercariTables>(services.db)).names(productId);
  return BRAND_NAMES.map((s) => [s, names.filter((n) => n.startsWith(s)).length]);
}

/**
 * The brand part of the demo: Mercari's search decides what a brand keyword returns (katakana,
 * romaji, diacritics, sub-brands) and every listing it returns is kept; a listing without a
 * price is counted and stored nowhere, so cheapest and the trend never see its placeholder.
 */
export async function showBrand(
  ctx: DemoContext,
  services: PipelineServices<MercariSettings>,
  fake: MercariFake,
): Promise<number> {
  const { print } = ctx;
  const product = await new ProductRepo(typed<MercariTables>(services.db)).create(
    { name: "CdG", keyword: DEMO_BRAND, enabled: false },
    isoTimestamp(services.clock.now()),
  );
  const productId = product.id;
  const queue = await services.openQueue();
  let s: Awaited<ReturnType<typeof executeCrawl>>["products"][number] | undefined;
  try {
    [s] = (await executeCrawl({ services, outbox: queue }, productId)).products;
    await drainCrawlQueue(services, queue, { timeoutMs: 120_000 });
  } finally {
    await queue.close();
  }
  if (!s) return productId;
  const estimate =
    s.num_found_estimate === null ? "" : ` (Mercari estimated ~${s.num_found_estimate})`;
  print(
    `Brand search "${DEMO_BRAND}" (product ${productId}): the pages held ${s.found} listings${estimate}; every priced one is kept, whatever its name says:`,
  );
  print(formatTable(["NAMED", "KEPT"], await spellings(services, productId)));
  const noPrice = fake.catalogue
    .all()
    .filter((l) => l.noPrice && l.group === DEMO_BRAND)
    .map((l) => l.id);
  const cheapest = await cheapestResults(services, productId, 3);
  const to = new Date(fake.catalogue.now().getTime() + 86_400_000).toISOString();
  const trend = await productTrend(services, productId, { to, bucket: "week" });
  const inTrend = trend.buckets.filter((b) => b.max >= 9_999_999).length;
  const inCheapest = cheapest.items.filter((r) => noPrice.includes(r.external_id)).length;
  print(
    `No price: ${s.no_price} hits showed Mercari's placeholder (¥9,999,999): counted as no_price, not stored; ` +
      `${inCheapest} of them among the cheapest, ${inTrend} in the trend. Cheapest on sale:`,
  );
  print(
    formatTable(
      ["PRICE", "MERCARI ID", "NAME"],
      cheapest.items.map((r) => [r.price, r.external_id, r.name]),
    ),
  );
  return productId;
}
