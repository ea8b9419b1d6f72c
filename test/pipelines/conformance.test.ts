// The promises every registered pipeline keeps; a new pipeline is held to them from its first
// commit. The suite is the one `tidemark/testing` gives outside pipelines.
import { fileURLToPath } from "node:url";
import type { PipelineDefinition } from "tidemark";
import { expect, it } from "vitest";
import { pipelines } from "../../src/pipelines/index.ts";
import { describePipelineConformance } from "../../src/sdk/testing.ts";

for (const pipeline of pipelines as PipelineDefinition[]) {
  describePipelineConformance(pipeline, {
    definitionFile: fileURLToPath(
      new URL(`../../src/pipelines/${pipeline.name}/index.ts`, import.meta.url),
    ),
  });
}

it("every pipeline has a fake and a demo", () => {
  for (const p of pipelines)
    expect({ name: p.name, fake: !!p.fake, demo: !!p.demo }).toEqual({
      name: p.name,
      fake: true,
      demo: true,
    });
});
