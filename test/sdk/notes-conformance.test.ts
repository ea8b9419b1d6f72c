// tidemark/testing's conformance suite on a pipeline from outside the package.
import { fileURLToPath } from "node:url";
import { describePipelineConformance } from "tidemark/testing";
import notes from "../fixtures/plugins/notes-pipeline.ts";

describePipelineConformance(notes, {
  definitionFile: fileURLToPath(new URL("../fixtures/plugins/notes-pipeline.ts", import.meta.url)),
});
