import type { PipelineDefinition } from "tidemark";
import { booksPipeline } from "./books/index.ts";
import { emailAnalyticsPipeline } from "./email-analytics/index.ts";
import { mercariPipeline } from "./mercari/index.ts";
import { rakutenPipeline } from "./rakuten/index.ts";
import { snapshotsPipeline } from "./snapshots/index.ts";

/**
 * Every pipeline of this build. Adding a pipeline = adding its folder and one line here.
 * Definitions must stay light to import: job types load their implementation on first run.
 */
export const pipelines: PipelineDefinition[] = [
  booksPipeline,
  snapshotsPipeline,
  mercariPipeline,
  rakutenPipeline,
  emailAnalyticsPipeline,
];
