/**
 * The mercari pipeline: tracks the market price of products on Mercari Japan. A cron job
 * queues one search crawl per enabled product; queue workers crawl the search (upsert,
 * inspect, existence and sold-date checks) and each listing's detail page; the API and CLI
 * show the listings, the cheapest ones and the sold-price trend. This module is the
 * definition only (cheap to import); the rest loads on first use.
 */
import { defineJobType, definePipeline, lazyMigrations } from "tidemark";
import { mercariCommands } from "./commands.ts";
import { mercariCrawlExample, mercariCrawlParams } from "./params.ts";
import { crawlQueueHandler } from "./queue/handlers.ts";
import { mercariRoutes } from "./routes.ts";
import { mercariSettings } from "./settings.ts";

/** `mercari.crawl`: one listCrawl message per enabled product on the crawl queue. */
export const mercariCrawlJobType = defineJobType({
  name: "mercari.crawl",
  description:
    "Mercari price tracker: queue one search crawl per enabled product (workers crawl the search and the detail pages)",
  params: mercariCrawlParams,
  example: mercariCrawlExample,
  settings: mercariSettings,
  async run(ctx, params) {
    const { runCrawlJob } = await import("./jobs/crawl-job.ts");
    return runCrawlJob(ctx, params);
  },
});

/** The mercari pipeline. */
export const mercariPipeline = definePipeline({
  name: "mercari",
  description:
    "Mercari Japan price tracker: search and detail crawls over the queue, price history",
  jobTypes: [mercariCrawlJobType],
  settings: mercariSettings,
  queueHandlers: [crawlQueueHandler],
  migrations: lazyMigrations({
    "0001-mercari": () => import("./migrations/0001-mercari.ts"),
    "0002-found-setting": () => import("./migrations/0002-found-setting.ts"),
  }),
  commandGroups: [
    {
      path: ["mercari"],
      description: "Mercari price tracker: crawl, results, trend, cheapest, product",
    },
    { path: ["mercari", "product"], description: "products and their crawl settings" },
  ],
  commands: mercariCommands,
  routes: mercariRoutes,
  panel: {
    title: "Mercari",
    load: async () => (await import("./panel/mercari-panel.ts")).mercariPanel,
  },
  async metrics(register) {
    const { registerMercariMetrics } = await import("./client/blocked.ts");
    await registerMercariMetrics(register);
  },
  fake: {
    description:
      "fake Mercari API (DPoP-checked search, item detail, Shops product) over a catalogue that moves on request, with block modes",
    async start(options) {
      const { startMercariFake } = await import("./fake/start-fake.ts");
      return startMercariFake(options);
    },
  },
  async demo(ctx) {
    const { runMercariDemo } = await import("./demo.ts");
    await runMercariDemo(ctx);
  },
});
