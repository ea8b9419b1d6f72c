import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

/** Runs the CLI in `cwd` with the test pipeline's registry. */
function cli(cwd: string, ...argv: string[]) {
  return runCli(argv, { cwd, registry: testRegistry() });
}

describe("files the user names that cannot be written", () => {
  it("init -c into a folder that does not exist: one line naming it, exit 2", async () => {
    const cwd = testTempDir("tm-file-");
    const r = await cli(cwd, "-c", "conf/tidemark.yaml", "init");
    expect(r.code).toBe(2);
    const file = path.join(cwd, "conf", "tidemark.yaml");
    expect(r.stderr).toBe(
      `tidemark: cannot write ${file}: folder ${path.dirname(file)} does not exist\n`,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("init where part of the path is a file: one line, exit 2, nothing left behind", async () => {
    const cwd = testTempDir("tm-file-");
    writeFileSync(path.join(cwd, "blocker"), "");
    const r = await cli(cwd, "-c", "blocker/tidemark.yaml", "init");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^tidemark: cannot write .*: part of the path is a file, not a folder\n$/,
    );
    expect(readdirSync(cwd)).toEqual(["blocker"]);
  });

  it("init refuses when a tidemark.yml is already the config, writing nothing beside it", async () => {
    const cwd = testTempDir("tm-file-");
    writeFileSync(path.join(cwd, "tidemark.yml"), "env: prod\n");
    const r = await cli(cwd, "init");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `tidemark: ${path.join(cwd, "tidemark.yml")} already exists; not overwriting it\n`,
    );
    expect(readdirSync(cwd)).toEqual(["tidemark.yml"]);
  });

  it("job export -o into a missing folder or onto a folder: one line, exit 2", async () => {
    const cwd = testTempDir("tm-file-");
    let r = await cli(cwd, "job", "export", "-o", "out/jobs.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `tidemark: cannot write ${path.join(cwd, "out", "jobs.yaml")}: folder ${path.join(cwd, "out")} does not exist\n`,
    );
    r = await cli(cwd, "job", "export", "-o", "data");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tidemark: cannot write ${path.join(cwd, "data")}: it is a folder\n`);
    expect(readdirSync(path.join(cwd, "data")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("job export -o replaces an existing file whole", async () => {
    const cwd = testTempDir("tm-file-");
    writeFileSync(path.join(cwd, "jobs.yaml"), "old content that is much longer than the export\n");
    const r = await cli(cwd, "job", "export", "-o", "jobs.yaml");
    expect(r).toMatchObject({ code: 0, stdout: "Wrote jobs.yaml\n" });
    expect(readdirSync(cwd).sort()).toEqual(["data", "jobs.yaml"]);
  });

  it("demo --data-dir naming a file, or inside one: one line, exit 2, the file untouched", async () => {
    const cwd = testTempDir("tm-file-");
    writeFileSync(path.join(cwd, "notes.txt"), "mine");
    // The real pipelines: the test registry has no demo, so it would stop before the folder.
    const demo = (dir: string) => runCli(["demo", "--only", "books", "--data-dir", dir], { cwd });
    let r = await demo("notes.txt");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `tidemark: --data-dir ${path.join(cwd, "notes.txt")}: it is a file, not a folder\n`,
    );
    r = await demo("notes.txt/demo");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `tidemark: --data-dir ${path.join(cwd, "notes.txt", "demo")}: part of the path is a file, not a folder\n`,
    );
    expect(readdirSync(cwd)).toEqual(["notes.txt"]);
  });
});
