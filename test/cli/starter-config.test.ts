// Every commented setting `tidemark init` writes is valid the moment it is uncommented: a user
// who removes the `# ` gets a working configuration, not a config error.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { STARTER_CONFIG } from "../../src/infra/config/starter-config.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

interface Block {
  key: string;
  /** Line indexes of the block. */
  lines: number[];
}

const SETTING = /^( *)# ([a-z_][\w-]*):/;

/**
 * Commented settings: consecutive `# key:` lines at one indentation and the deeper commented
 * lines under them, ended by a blank, prose or uncommented line.
 */
function commentedBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = SETTING.exec(lines[i]!);
    if (!m) continue;
    const indent = m[1]!;
    const block: Block = { key: `${indent}${m[2]}`, lines: [i] };
    const continues = (l: string | undefined) =>
      l !== undefined && (l.startsWith(`${indent}#   `) || SETTING.exec(l)?.[1] === indent);
    while (continues(lines[i + 1])) block.lines.push(++i);
    blocks.push(block);
  }
  return blocks;
}

/** What an editor's "toggle comment" does: the `# ` after the indentation goes. */
function uncomment(line: string): string {
  return line.replace(/^( *)# ?/, "$1");
}

it("every commented block of the starter config loads once uncommented", () => {
  const lines = STARTER_CONFIG.split("\n");
  const blocks = commentedBlocks(lines);
  expect(blocks.map((b) => b.key.trim())).toEqual(
    expect.arrayContaining([
      "driver",
      "pg_boss",
      "snapshots",
      "rakuten",
      "mercari",
      "email-analytics",
      "webhook_url",
      "level",
    ]),
  );
  const cwd = testTempDir("tm-starter-");
  const file = path.join(cwd, "tidemark.yaml");
  const registry = new Registry(pipelines);
  const failures: string[] = [];
  for (const block of blocks) {
    const edited = lines.map((l, i) => (block.lines.includes(i) ? uncomment(l) : l));
    writeFileSync(file, edited.join("\n"));
    try {
      loadConfig({
        configPath: file,
        cwd,
        env: {},
        pipelineSettings: registry.settingsSpecs(),
      });
    } catch (err) {
      failures.push(`${block.key.trim()}: ${(err as Error).message}`);
    }
  }
  expect(failures).toEqual([]);
});

it("the file init writes works as written", async () => {
  const cwd = testTempDir("tm-starter-");
  const env = { TIDEMARK_DATA_DIR: path.join(cwd, "d") };
  expect((await runCli(["init"], { cwd, env })).code).toBe(0);
  const r = await runCli(["job", "ls"], { cwd, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
});
