// The pipeline settings `tidemark init` writes as comments are valid once uncommented: a user
// who removes the `#` gets a working configuration, not a config error.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { STARTER_CONFIG } from "../../src/infra/config/starter-config.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

/** The starter config with every commented pipeline block under `pipelines:` uncommented. */
function withPipelinesUncommented(): { yaml: string; pipelines: string[] } {
  const pipelines: string[] = [];
  const [head, tail] = STARTER_CONFIG.split("pipelines: {}\n") as [string, string];
  const blocks = tail.replace(/^# {3}([a-z-]+):.*\n(?:# {5}.*\n)*/gm, (block, name: string) => {
    pipelines.push(name);
    return block.replace(/^# {3}/gm, "  ");
  });
  return { yaml: `${head}pipelines:\n${blocks}`, pipelines };
}

it("every pipeline block the starter config shows is valid uncommented", async () => {
  const { yaml, pipelines } = withPipelinesUncommented();
  expect(pipelines).toEqual(["snapshots", "rakuten", "mercari", "email-analytics"]);
  const cwd = testTempDir("tm-starter-");
  writeFileSync(path.join(cwd, "tidemark.yaml"), yaml);
  const r = await runCli(["job", "ls"], { cwd, env: { TIDEMARK_DATA_DIR: path.join(cwd, "d") } });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
});
