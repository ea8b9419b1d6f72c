// The promises every Tidemark pipeline keeps (definition, examples, settings, migrations on
// SQLite and, with TIDEMARK_TEST_PG_URL set, Postgres, fake, demo, panel).
import { fileURLToPath } from "node:url";
import { describePipelineConformance } from "tidemark/testing";
import { starterKitPipeline } from "../index.ts";

describePipelineConformance(starterKitPipeline, {
  definitionFile: fileURLToPath(new URL("../index.ts", import.meta.url)),
});
