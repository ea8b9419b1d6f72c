import type { DemoContext, PipelineServices } from "tidemark";
import { formatTable, isoTimestamp, typed } from "tidemark/kit";
import { showBrand } from "./demo/brand.ts";
import { startMercariFakeServer } from "./fake/start-fake.ts";
import { drainCrawlQueue } from "./queue/drain.ts";
import { ProductRepo } from "./repos/product-repo.ts";
import { ResultQueries } from "./repos/result-queries.ts";
import { type MercariSettings, mercariSettingsOf } from "./settings.ts";
import { cheapestResults, productTrend } from "./stages/results/result-views.ts";
import type { MercariTables } from "./tables.ts";

const JOB = "mercari-hourly";
/** How far the demo moves the fake's catalogue between its two crawls. */
const DEMO_HOURS = 6;

async function counts(services: PipelineServices, productId: number): Promise<string> {
  const rows = await new ResultQueries(typed<MercariTables>(services.db)).statuses(productId);
  const onSale = rows.filter((r) => r.selling_status === 1).length;
  const sold = rows.length - onSale;
  const dated = rows.filter((r) => r.sold_out_at !== null).length;
  return `${rows.length} listings stored: ${onSale} on sale, ${sold} sold (${dated} with a sold date)`;
}

/** The demo's services (their settings point at its fake) and that `pipelines.mercari` section. */
interface DemoServices {
  readonly services: PipelineServices<MercariSettings>;
  readonly section: Record<string, unknown>;
}

/** One hourly crawl: the job queues the search, the workers crawl it and run the detail checks. */
async function crawlOnce(ctx: DemoContext, demo: DemoServices, productId: number, n: number) {
  const { services, section } = demo;
  const report = await ctx.runJob({
    job: JOB,
    type: "mercari.crawl",
    params: {},
    settings: section,
  });
  ctx.print(`Crawl ${n}: job ${JOB} ${report.status}, ${JSON.stringify(report.summary)}`);
  const queue = await services.openQueue();
  try {
    const drained = await drainCrawlQueue(services, queue, { timeoutMs: 120_000 });
    ctx.print(
      `  workers handled ${drained.handled} messages (1 listCrawl, then syncDetail checks), ${drained.failed} failed`,
    );
  } finally {
    await queue.close();
  }
  ctx.print(`  ${await counts(services, productId)}`);
}

/**
 * `tidemark demo` for mercari: the fake Mercari API on a local port, a product, two hourly
 * crawls while the fake's catalogue moves (listings appear, change price, sell, vanish), the
 * detail messages worked off the queue, then the cheapest listings and the price trend; then a
 * brand search whose listings in every spelling are kept and whose no-price hits are counted.
 */
export async function runMercariDemo(ctx: DemoContext): Promise<void> {
  const { print } = ctx;
  // The catalogue starts the demo's six hours in the past, so after it moves no listing,
  // price or sale is dated ahead of the clock.
  const start = new Date(ctx.services.clock.now().getTime() - DEMO_HOURS * 3_600_000);
  const started = await startMercariFakeServer({ seed: 11, start });
  try {
    // The demo talks to its fake only, whatever the shell exports.
    const section = {
      base_url: started.url,
      requests_per_second: 0,
      page_size: 50,
      use_env: false,
    };
    const services = { ...ctx.services, settings: mercariSettingsOf(section) };
    const demo: DemoServices = { services, section };
    print(`Fake Mercari API: ${started.url} (DPoP proofs checked on every request)`);
    const now = isoTimestamp(services.clock.now());
    const product = await new ProductRepo(typed<MercariTables>(services.db)).create(
      { name: "Switch", keyword: "Nintendo Switch", min_price: 10_000, enabled: true },
      now,
    );
    print(
      `Product ${product.id}: keyword "Nintendo Switch", from 10000 yen, crawled hourly by job ${JOB}`,
    );
    await services.jobs.add({
      name: JOB,
      type: "mercari.crawl",
      params: {},
      schedule: "0 * * * *",
      timezone: "UTC",
      enabled: true,
    });
    await crawlOnce(ctx, demo, product.id, 1);
    const moved = started.fake.catalogue.advance(DEMO_HOURS * 3_600_000);
    print(
      `The catalogue moves 6 hours: ${moved.listed} listed, ${moved.repriced} repriced, ${moved.sold + moved.completed} sold, ${moved.deleted} deleted`,
    );
    await crawlOnce(ctx, demo, product.id, 2);
    const cheapest = await cheapestResults(services, product.id, 5);
    print("Cheapest on sale:");
    print(
      formatTable(
        ["PRICE", "MERCARI ID", "NAME"],
        cheapest.items.map((r) => [r.price, r.external_id, r.name]),
      ),
    );
    const to = new Date(started.fake.catalogue.now().getTime() + 86_400_000).toISOString();
    const trend = await productTrend(services, product.id, { to, bucket: "week" });
    print("Sold prices by week (sold date approximated from Mercari's updated time):");
    print(
      formatTable(
        ["WEEK OF", "SOLD", "MIN", "P25", "MEDIAN", "P75", "MAX"],
        trend.buckets.map((b) => [
          b.bucket,
          b.count,
          b.min,
          Math.round(b.p25),
          Math.round(b.median),
          Math.round(b.p75),
          b.max,
        ]),
      ),
    );
    const brand = await showBrand(ctx, services, started.fake);
    print(`Products:      ${ctx.command("mercari product ls")}`);
    print(`Its listings:  ${ctx.command(`mercari results ${product.id}`)}`);
    print(`Price trend:   ${ctx.command(`mercari trend ${product.id} --bucket week`)}`);
    print(`Brand listings: ${ctx.command(`mercari results ${brand} --limit 20`)}`);
    print(`Brand cheapest: ${ctx.command(`mercari cheapest ${brand}`)}`);
  } finally {
    await started.close();
  }
}
