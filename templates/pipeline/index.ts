/**
 * The starter-kit pipeline: records of an HTTP API, paged with a cursor (their update time),
 * unchanged ones skipped through a ledger. This module is the definition only, cheap to import
 * (zod and tidemark's contract): jobs, the fake, the demo and the panel load on first use.
 */
import { defineJobType, definePipeline, lazyMigrations } from "tidemark";
import { syncExample, syncParams } from "./params.ts";
import { starterKitSettings } from "./settings.ts";

/** `starter-kit.sync`: the records updated since the last run, into `starter_kit_record`. */
export const starterKitSyncJobType = defineJobType({
  name: "starter-kit.sync",
  description: "records updated since the cursor → starter_kit_record (unchanged ones skipped)",
  params: syncParams,
  example: syncExample,
  settings: starterKitSettings,
  async run(ctx, params) {
    const { runSync } = await import("./jobs/sync.ts");
    return runSync(ctx, params);
  },
});

/** The pipeline: `plugins: [./index.ts]` in tidemark.yaml registers it. */
export const starterKitPipeline = definePipeline({
  name: "starter-kit",
  description: "records of the Starter Kit API, synced incrementally with a cursor and a ledger",
  jobTypes: [starterKitSyncJobType],
  settings: starterKitSettings,
  migrations: lazyMigrations({
    "0001-starter-kit": () => import("./migrations/0001-starter-kit.ts"),
  }),
  panel: {
    title: "Starter Kit",
    load: async () => (await import("./panel/starter-kit-panel.ts")).starterKitPanel,
  },
  fake: {
    description: "fake Starter Kit API (120 records; POST /_fake/touch?count=N changes some)",
    async start(options) {
      const { startStandaloneFake } = await import("./fake/start-fake.ts");
      return startStandaloneFake(options);
    },
  },
  async demo(ctx) {
    const { runDemo } = await import("./demo.ts");
    await runDemo(ctx);
  },
});

export default starterKitPipeline;
