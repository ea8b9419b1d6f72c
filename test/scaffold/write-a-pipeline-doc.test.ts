// docs/write-a-pipeline.md, run as written: its `checked` shell blocks in order, in a fresh
// folder, with `npx tidemark` the CLI built as the tarball ships it (scripts/build.ts) and
// `npm install`/`npm test` offline stand-ins (doc-shims.ts). The Postgres block runs when
// TIDEMARK_TEST_PG_URL is set, on a database of its own.
import { execFile } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildInstalledLayout } from "../../scripts/build.ts";
import { describeEachDialect, testDialects } from "../../src/testing/dialects.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { checkedBlocks } from "./doc-blocks.ts";
import { writeShims } from "./doc-shims.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const GUIDE = path.join(REPO, "docs", "write-a-pipeline.md");
/** The placeholder database of the guide's Postgres block. */
const GUIDE_PG_URL = "postgres://tidemark@db.example:5432/tidemark";

/** A background block's command, left running; the `export` lines it prints are applied. */
function background(line: string, n: number): string {
  const out = `"$DOC_TMP/background-${n}.out"`;
  return [
    `${line} >${out} 2>&1 &`,
    `DOC_PIDS="$DOC_PIDS $!"`,
    `for _ in $(seq 1 300); do grep -q '^ *export ' ${out} && break; sleep 0.2; done`,
    `eval "$(sed -n 's/^ *export /export /p' ${out})"`,
  ].join("\n");
}

/** The guide's blocks with any of `tags`, as one bash script (placeholder lines left out). */
function guideScript(tags: string[], pgUrl: string | undefined): string {
  const out = [
    "set -euo pipefail",
    'DOC_PIDS=""',
    "trap 'kill $DOC_PIDS 2>/dev/null || true' EXIT",
  ];
  let n = 0;
  for (const block of checkedBlocks(GUIDE)) {
    if (!block.tags.some((t) => tags.includes(t))) continue;
    for (const raw of block.lines) {
      // A line the reader completes (`…`) is done by the background block before it.
      if (raw.includes("…")) continue;
      const line = pgUrl ? raw.replaceAll(GUIDE_PG_URL, pgUrl) : raw;
      out.push(`echo "\\$ ${line.replaceAll('"', '\\"').replaceAll("$", "\\$")}"`);
      out.push(block.tags.includes("background") ? background(line, n++) : line);
    }
  }
  return `${out.join("\n")}\n`;
}

/** Runs `script` with bash in `cwd`; never rejects. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      "bash",
      ["-c", script],
      { cwd, env, timeout: 280_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** A project folder, the built layout and the shims, as a reader would have after step 1. */
async function readerSetup(): Promise<{ project: string; env: NodeJS.ProcessEnv }> {
  const tmp = testTempDir("tm-guide-");
  const layout = path.join(tmp, "tidemark");
  mkdirSync(layout);
  await buildInstalledLayout(layout);
  // The package ships templates/ beside dist/ (package.json "files").
  symlinkSync(path.join(REPO, "templates"), path.join(layout, "templates"));
  const project = path.join(tmp, "my-pipelines");
  mkdirSync(project);
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "my-pipelines", dependencies: { tidemark: `file:${layout}` } }),
  );
  const shims = writeShims(tmp, layout, REPO);
  const env: NodeJS.ProcessEnv = {
    PATH: `${shims}:${process.env.PATH}`,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    DOC_TMP: tmp,
    TIDEMARK_LOG_LEVEL: "warn",
  };
  return { project, env };
}

describe("docs/write-a-pipeline.md", () => {
  it("has checked blocks for every step from new pipeline to the schedule", () => {
    const tags = checkedBlocks(GUIDE).flatMap((b) => b.tags);
    expect(tags).toContain("embedded");
    expect(tags).toContain("background");
    expect(tags).toContain("postgres");
  });
});

// One run of the guide: its embedded steps, then (with a Postgres server) its Postgres steps on
// a fresh database; without one, the embedded steps alone.
describeEachDialect("docs/write-a-pipeline.md, run as written", (h) => {
  const postgresToo = testDialects().includes("postgres");
  it.skipIf(postgresToo && h.dialect === "sqlite")(
    "scaffold, npm test, job types, demo, runs against the fake (then on Postgres + pg-boss, a scheduled job run through the queue)",
    async () => {
      const { project, env } = await readerSetup();
      const target = h.dialect === "postgres" ? await h.freshTarget() : undefined;
      const pgUrl = target?.dialect === "postgres" ? target.url : undefined;
      const tags = pgUrl ? ["embedded", "postgres"] : ["embedded"];
      const res = await bash(guideScript(tags, pgUrl), project, env);
      expect(res.code, res.output).toBe(0);
      expect(res.output).toMatch(/Created pipeline acme/);
      expect(res.output).toContain("acme.sync");
      if (pgUrl) {
        expect(res.output).toMatch(/hourly.*0 \* \* \* \*/);
        expect(res.output).toMatch(/hourly\S*\s.*succeeded/);
      }
    },
    300_000,
  );
});
