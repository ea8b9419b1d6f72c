/**
 * The rakuten pipeline: Rakuten Ichiba rankings, items, genres and tags through the engine's
 * entity ETL (fetch → normalize → hash → staging ledger → immutable raw → apply), the is_active
 * update, and item embeddings. This module is the definition only (cheap to import); jobs,
 * commands, the fake and the demo load their implementation on first use.
 */
import { definePipeline, lazyMigrations } from "tidemark";
import { rakutenCommandGroups, rakutenCommands } from "./commands.ts";
import { rakutenJobType } from "./jobs/job-type.ts";
import {
  embeddingExample,
  embeddingParams,
  embeddingSourceExample,
  embeddingSourceParams,
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

/** `rakuten.ranking`. */
export const rankingJobType = rakutenJobType({
  name: "rakuten.ranking",
  description:
    "Rakuten rankings of the job's genres; a rank snapshot whenever a genre's ranking changed",
  params: rankingParams,
  example: rankingExample,
  entity: "ranking",
  load: async () => (await import("./jobs/ranking-job.ts")).runRankingJob,
});

/** `rakuten.item`. */
export const itemJobType = rakutenJobType({
  name: "rakuten.item",
  description:
    "Rakuten items of the current rankings (plus listed item codes): item, shop, images, tags, price and review snapshots",
  params: itemParams,
  example: itemExample,
  entity: "item",
  load: async () => (await import("./jobs/item-job.ts")).runItemJob,
});

/** `rakuten.genre`. */
export const genreJobType = rakutenJobType({
  name: "rakuten.genre",
  description: "Rakuten genres of the items saved today (UTC)",
  params: genreParams,
  example: genreExample,
  entity: "genre",
  load: async () => (await import("./jobs/genre-job.ts")).runGenreJob,
});

/** `rakuten.tag`. */
export const tagJobType = rakutenJobType({
  name: "rakuten.tag",
  description: "Rakuten tags (and their groups) of the items saved today (UTC)",
  params: tagParams,
  example: tagExample,
  entity: "tag",
  load: async () => (await import("./jobs/tag-job.ts")).runTagJob,
});

/** `rakuten.is-active`. */
export const isActiveJobType = rakutenJobType({
  name: "rakuten.is-active",
  description:
    "marks items active when their genre and shop are known; rows whose value stays the same are not written",
  params: isActiveParams,
  example: isActiveExample,
  load: async () => (await import("./jobs/is-active-job.ts")).runIsActiveJob,
});

/** `rakuten.reapply`: what `tidemark rakuten reapply <entity>` runs. */
export const reapplyJobType = rakutenJobType({
  name: "rakuten.reapply",
  description:
    "re-applies an entity's staging rows not applied by its current apply version, from the raw store (no API call)",
  params: reapplyParams,
  example: reapplyExample,
  entity: (params) => params.entity,
  load: async () => (await import("./jobs/reapply-job.ts")).runReapplyJob,
});

/** `rakuten.embedding-source`. */
export const embeddingSourceJobType = rakutenJobType({
  name: "rakuten.embedding-source",
  description:
    "builds each item's embedding text (name, catch copy, genre, tags, caption start) and its hash; writes only changed ones",
  params: embeddingSourceParams,
  example: embeddingSourceExample,
  load: async () => (await import("./jobs/embedding-source-job.ts")).runEmbeddingSource,
});

/** `rakuten.embedding`. */
export const embeddingJobType = rakutenJobType({
  name: "rakuten.embedding",
  description:
    "embeds items whose embedding is missing, whose text changed or that another model embedded (provider: local lexical or openai-compatible)",
  params: embeddingParams,
  example: embeddingExample,
  load: async () => (await import("./jobs/embedding-job.ts")).runEmbedding,
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
  migrations: lazyMigrations({
    "0001-rakuten": () => import("./migrations/0001-rakuten.ts"),
    "0002-item-applied-sig": () => import("./migrations/0002-item-applied-sig.ts"),
    "0003-embedding-applied-version": () =>
      import("./migrations/0003-embedding-applied-version.ts"),
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
      const { rakutenFake } = await import("./fake/start-fake.ts");
      return rakutenFake.start(options);
    },
  },
  async demo(ctx) {
    const { runRakutenDemo } = await import("./demo.ts");
    await runRakutenDemo(ctx);
  },
});
