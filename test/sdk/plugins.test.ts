// `plugins:` in tidemark.yaml: pipelines from outside the package, registered like built-in ones.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeEachDialect, runCli, testTempDir } from "tidemark/testing";
import { describe, expect, it } from "vitest";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";

const NOTES = fileURLToPath(new URL("../fixtures/plugins/notes-pipeline.ts", import.meta.url));

/** A folder with tidemark.yaml listing `plugins`, and files written into it. */
function project(plugins: string[], files: Record<string, string> = {}): string {
  const cwd = testTempDir("tm-plugins-");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true });
    writeFileSync(path.join(cwd, name), text);
  }
  const list = plugins.map((p) => `  - ${JSON.stringify(p)}`).join("\n");
  writeFileSync(path.join(cwd, "tidemark.yaml"), `plugins:\n${list}\n`);
  return cwd;
}

/** A package in the project's node_modules whose entry exports `source`. */
function pkg(name: string, source: string, extra: Record<string, unknown> = {}) {
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({
      name,
      version: "1.0.0",
      type: "module",
      exports: { ".": { import: "./index.js" } },
      ...extra,
    }),
    [`node_modules/${name}/index.js`]: source,
  };
}

const HELLO = `export const pipeline = { name: "hello", description: "hello from a package", jobTypes: [
  { name: "hello.say", description: "says hello", params: { safeParse: () => ({ success: true, data: {} }) },
    example: {}, run: async () => ({ summary: {} }) }] };\n`;

async function refused(cwd: string) {
  const res = await runCli(["job", "ls"], {
    cwd,
    env: { TIDEMARK_DATA_DIR: path.join(cwd, "data") },
  });
  expect(res.code).toBe(2);
  expect(res.stderr.trim().split("\n")).toHaveLength(1);
  expect(existsSync(path.join(cwd, "data"))).toBe(false);
  return res.stderr;
}

describe("plugins: loading", () => {
  it("a TypeScript file's pipeline shows in job types and --help with the built-ins", async () => {
    const cwd = project([NOTES]);
    const types = await runCli(["job", "types"], { cwd });
    expect(types.stdout).toContain("notes.write");
    expect(types.stdout).toContain("books.run");
    const help = await runCli(["--help"], { cwd });
    expect(help.stdout).toContain("notes");
    const group = await runCli(["notes", "--help"], { cwd });
    expect(group.stdout).toContain("count");
  });

  it("the tidemark binary loads a TypeScript plugin from a folder of its own", async () => {
    const cwd = project([NOTES]);
    const res = await spawnCli(["job", "types"], { cwd });
    expect(res.stderr).toBe("");
    expect(res.stdout).toContain("notes.write");
  });

  it("an installed package's compiled pipeline loads by name", async () => {
    const cwd = project(["tidemark-pipeline-hello"], pkg("tidemark-pipeline-hello", HELLO));
    const res = await runCli(["job", "types"], { cwd });
    expect(res.stderr).toBe("");
    expect(res.stdout).toContain("hello.say");
  });

  it("a missing file or package exits 2 naming it, before anything is written", async () => {
    expect(await refused(project(["./pipelines/nope.ts"]))).toMatch(
      /tidemark\.yaml: plugins: \.\/pipelines\/nope\.ts: file not found/,
    );
    expect(await refused(project(["tidemark-pipeline-absent"]))).toMatch(
      /plugins: tidemark-pipeline-absent: package not installed/,
    );
  });

  it("a module that fails to load or exports no definition exits 2 saying so", async () => {
    const broken = project(["./broken.js"], { "broken.js": 'throw new Error("kaput");\n' });
    expect(await refused(broken)).toMatch(/plugins: \.\/broken\.js: failed to load: kaput/);
    const empty = project(["./empty.js"], { "empty.js": "export const other = 1;\n" });
    expect(await refused(empty)).toMatch(/plugins: \.\/empty\.js: exports no pipeline definition/);
  });

  it("a plugin that claims a registered name exits 2 naming the clash", async () => {
    const again = project([NOTES, NOTES]);
    expect(await refused(again)).toContain(
      "pipeline notes is already registered by pipeline notes",
    );
    const books = `export default { name: "my-books", description: "x", jobTypes: [{ name: "books.run" }] };\n`;
    const clash = project(["./books.js"], { "books.js": books });
    expect(await refused(clash)).toMatch(
      /plugins: \.\/books\.js: job type books\.run is already registered by pipeline books/,
    );
  });

  it("a package whose range on tidemark leaves this version out exits 2 naming both", async () => {
    const peers = pkg("tidemark-pipeline-hello", HELLO, { peerDependencies: { tidemark: ">=9" } });
    expect(await refused(project(["tidemark-pipeline-hello"], peers))).toMatch(
      /plugins: tidemark-pipeline-hello: needs tidemark >=9 \(peerDependencies\), this is tidemark \d+\.\d+\.\d+/,
    );
    const engines = pkg("tidemark-pipeline-hello", HELLO, { engines: { tidemark: "^0.0.1" } });
    expect(await refused(project(["tidemark-pipeline-hello"], engines))).toMatch(
      /needs tidemark \^0\.0\.1 \(engines\)/,
    );
    const fits = pkg("tidemark-pipeline-hello", HELLO, { peerDependencies: { tidemark: ">=0.1" } });
    const ok = await runCli(["job", "types"], { cwd: project(["tidemark-pipeline-hello"], fits) });
    expect(ok.stdout).toContain("hello.say");
  });
});

describeEachDialect("plugins: a plugin pipeline at work", (h) => {
  it("db migrate creates its tables, its demo runs a job and its command reads them", async () => {
    const { cwd, env } = await cliEnv(h, "tm-plugins-db-");
    writeFileSync(path.join(cwd, "tidemark.yaml"), `plugins:\n  - ${JSON.stringify(NOTES)}\n`);
    const migrate = await runCli(["db", "migrate"], { cwd, env });
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout + migrate.stderr).toContain("notes");
    const demo = await runCli(["demo", "--only", "notes", "--data-dir", "demo"], { cwd, env });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("notes demo: succeeded, hello demo");
    const count = await runCli(["notes", "count"], { cwd, env });
    expect(count.stdout.trim()).toBe("notes: 0");
    // The demo's own configuration lists the plugin, so the commands it prints see it.
    const again = await runCli(["-c", "demo", "notes", "count"], { cwd, env: {} });
    expect(again.stdout.trim()).toBe("notes: 1");
  });
});
