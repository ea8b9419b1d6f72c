// The promises every Tidemark pipeline keeps, on SQLite and (TIDEMARK_TEST_PG_URL) Postgres.
import { fileURLToPath } from "node:url";
import { describePipelineConformance } from "tidemark/testing";
import { registryFeedPipeline } from "../index.ts";

describePipelineConformance(registryFeedPipeline, {
  definitionFile: fileURLToPath(new URL("../index.ts", import.meta.url)),
});
