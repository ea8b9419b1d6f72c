/**
 * The rakuten pipeline: Rakuten Ichiba rankings, items, genres and tags through the engine's
 * entity ETL (fetch → normalize → hash → staging ledger → immutable raw → apply), the is_active
 * update, and item embeddings. This module is the definition only (cheap to import); jobs,
 * commands, the fake and the demo load their implementation on first use.
 */
import { defineJobType, definePipeline } from "../../engine/define.ts";
import { rakutenCommandGroups, rakutenCommands } from "./commands.ts";
import {
  embeddingExample,
  embeddingParams,
  embeddingSourceExample,
  embeddingSourceParams,
} from "./embeddings/params.ts";
import {
  genreExample,
  genreParams,
  isActiveExample,
  isActiveParams,
  itemExample,
  itemParams,
  rankingExample,
  rankingParams,
  reapplyExample,
  reapplyParams,
  tagExample,
  tagParams,
} from "./params.ts";
import { rakutenSettings } from "./settings.ts";

/**
 * One lease per entity, held by every job that writes its ledger and domain rows (the entity's
 * jobs, whatever their names, and `rakuten reapply <entity>`): two runs applying the same items
 * at once could each record the same price change. The API's rate limit is shared anyway.
 */
export function entityLeaseKey(entity: string): string {
  return `rakuten:${entity}`;
}

/** `rakuten.ranking`. */
export const rankingJobType = defineJobType({
  name: "rakuten.ranking",
  description:
    "Rakuten rankings of the job's genres; a rank snapshot whenever a genre's ranking changed",
  params: rankingParams,
  example: rankingExample,
  settings: rakutenSettings,
  leaseKey: () => entityLeaseKey("ranking"),
  async run(ctx, params) {
    const { runRankingJob } = await import("./jobs/ranking.ts");
    return runRankingJob(ctx, params);
  },
});

/** `rakuten.item`. */
export const itemJobType = defineJobType({
  name: "rakuten.item",
  description:
    "Rakuten items of the current rankings (plus listed item codes): item, shop, images, tags, price and review snapshots",
  params: itemParams,
  example: itemExample,
  settings: rakutenSettings,
  leaseKey: () => entityLeaseKey("item"),
  async run(ctx, params) {
    const { runItemJob } = await import("./jobs/item.ts");
    return runItemJob(ctx, params);
  },
});

/** `rakuten.genre`. */
export const genreJobType = defineJobType({
  name: "rakuten.genre",
  description: "Rakuten genres of the items saved today (UTC)",
  params: genreParams,
  example: genreExample,
  settings: rakutenSettings,
  leaseKey: () => entityLeaseKey("genre"),
  async run(ctx, params) {
    const { runGenreJob } = await import("./jobs/genre.ts");
    return runGenreJob(ctx, params);
  },
});

/** `rakuten.tag`. */
export const tagJobType = defineJobType({
  name: "rakuten.tag",
  description: "Rakuten tags (and their groups) of the items saved today (UTC)",
  params: tagParams,
  example: tagExample,
  settings: rakutenSettings,
  leaseKey: () => entityLeaseKey("tag"),
  async run(ctx, params) {
    const { runTagJob } = await import("./jobs/tag.ts");
    return runTagJob(ctx, params);
  },
});

/** `rakuten.is-active`. */
export const isActiveJobType = defineJobType({
  name: "rakuten.is-active",
  description:
    "marks items active when their genre and shop are known; rows whose value stays the same are not written",
  params: isActiveParams,
  example: isActiveExample,
  settings: rakutenSettings,
  async run(ctx) {
    const { runIsActiveJob } = await import("./jobs/is-active.ts");
    return runIsActiveJob(ctx);
  },
});

/** `rakuten.reapply`: what `tidemark rakuten reapply <entity>` runs. */
export const reapplyJobType = defineJobType({
  name: "rakuten.reapply",
  description:
    "re-applies an entity's staging rows not applied by its current apply version, from the raw store (no API call)",
  params: reapplyParams,
  example: reapplyExample,
  settings: rakutenSettings,
  leaseKey: (_job, params) => entityLeaseKey(params.entity),
  async run(ctx, params) {
    const { runReapplyJob } = await import("./jobs/reapply.ts");
    return runReapplyJob(ctx, params);
  },
});

/** `rakuten.embedding-source`. */
export const embeddingSourceJobType = defineJobType({
  name: "rakuten.embedding-source",
  description:
    "builds each item's embedding text (name, catch copy, genre, tags, caption start) and its hash; writes only changed ones",
  params: embeddingSourceParams,
  example: embeddingSourceExample,
  settings: rakutenSettings,
  async run(ctx, params) {
    const { runEmbeddingSource } = await import("./jobs/embedding-source.ts");
    return runEmbeddingSource(ctx, params);
  },
});

/** `rakuten.embedding`. */
export const embeddingJobType = defineJobType({
  name: "rakuten.embedding",
  description:
    "embeds items whose embedding is missing, whose text changed or that another model embedded (provider: local lexical or openai-compatible)",
  params: embeddingParams,
  example: embeddingExample,
  settings: rakutenSettings,
  async run(ctx, params) {
    const { runEmbedding } = await import("./jobs/embedding.ts");
    return runEmbedding(ctx, params);
  },
});

/** The rakuten pipeline. */
export const rakutenPipeline = definePipeline({
  name: "rakuten",
  description:
    "Rakuten Ichiba rankings, items, genres and tags through a staging ledger and an immutable raw store",
  jobTypes: [
    rankingJobType,
    itemJobType,
    genreJobType,
    tagJobType,
    isActiveJobType,
    reapplyJobType,
    embeddingSourceJobType,
    embeddingJobType,
  ],
  settings: rakutenSettings,
  migrations: async () => ({
    "0001-rakuten": await import("./migrations/0001-rakuten.ts"),
    "0002-item-applied-sig": await import("./migrations/0002-item-applied-sig.ts"),
    "0003-embedding-applied-version": await import(
      "./migrations/0003-embedding-applied-version.ts"
    ),
  }),
  commandGroups: rakutenCommandGroups,
  commands: rakutenCommands,
  panel: {
    title: "Rakuten",
    load: async () => (await import("./panel/rakuten-panel.ts")).rakutenPanel,
  },
  fake: {
    description:
      "Rakuten Ichiba API (item search, ranking, genre, tag) with a Japanese gift catalogue, and an embeddings endpoint",
    async start(options) {
      const { rakutenFake } = await import("./fake/start-rakuten-fake.ts");
      return rakutenFake.start(options);
    },
  },
  async demo(ctx) {
    const { runRakutenDemo } = await import("./demo.ts");
    await runRakutenDemo(ctx);
  },
});
