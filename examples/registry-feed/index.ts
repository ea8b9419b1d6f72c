/**
 * The registry-feed pipeline, an example of a pipeline outside Tidemark: it follows a package
 * registry's changes feed (a sequence-number cursor), fetches each changed package, skips the
 * unchanged ones through a ledger and removes unpublished ones. This module is the definition
 * only (zod and `tidemark`); everything else loads on first use.
 */
import { defineJobType, definePipeline } from "tidemark";
import { followExample, followParams } from "./params.ts";
import { registryFeedSettings } from "./settings.ts";

/** `registry-feed.follow`: the changes since the cursor, into `registry_feed_package`. */
export const registryFeedFollowJobType = defineJobType({
  name: "registry-feed.follow",
  description: "package registry changes feed → registry_feed_package (unchanged ones skipped)",
  params: followParams,
  example: followExample,
  settings: registryFeedSettings,
  async run(ctx, params) {
    const { runFollow } = await import("./jobs/follow.ts");
    return runFollow(ctx, params);
  },
});

/** The pipeline: `plugins: [./index.ts]` in tidemark.yaml registers it. */
export const registryFeedPipeline = definePipeline({
  name: "registry-feed",
  description: "a package registry's changes feed, followed with a cursor and a ledger",
  jobTypes: [registryFeedFollowJobType],
  settings: registryFeedSettings,
  migrations: async () => ({
    "0001-registry-feed": await import("./migrations/0001-registry-feed.ts"),
  }),
  panel: {
    title: "Registry feed",
    load: async () => (await import("./panel/registry-panel.ts")).registryPanel,
  },
  fake: {
    description:
      "fake package registry (40 packages, a changes feed; POST /_fake/publish adds one)",
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

export default registryFeedPipeline;
