// The small traps of a first hour: names, messages and widths a newcomer meets.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pipelines } from "../../src/pipelines/index.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { startPipelineFake } from "../../src/testing/start-pipeline-fake.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("first-hour details", () => {
  it("package.json's description names all five pipelines", () => {
    const { description } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
    for (const p of pipelines) expect(description).toContain(p.name);
  });

  it("a schedule of the wrong size says 5 or 6 fields, as the README does", async () => {
    const cwd = testTempDir("tm-first-hour-");
    const env = { TIDEMARK_DATA_DIR: path.join(cwd, "d") };
    for (const schedule of ["* * *", "0 0 1 1 * * 2030"]) {
      const r = await runCli(
        ["job", "add", "x", "--type", "mercari.crawl", "--schedule", schedule],
        {
          cwd,
          env,
        },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/expected 5 fields \(minute .*\) or 6 \(seconds first\), got \d\n$/);
    }
    expect(readFileSync(path.join(ROOT, "README.md"), "utf8")).toContain("(5 or 6 fields");
  });

  it("a mistyped config key gets 'did you mean'", async () => {
    const cwd = testTempDir("tm-first-hour-");
    const env = { TIDEMARK_DATA_DIR: path.join(cwd, "d") };
    for (const [yaml, line] of [
      ["pipelnes: {}\n", /unknown key\(s\) "pipelnes" \(did you mean "pipelines"\?\)/],
      ["server:\n  prot: 8080\n", /server: unknown key\(s\) "prot" \(did you mean "port"\?\)/],
      [
        "pipelines:\n  mercari:\n    requests_per_secnd: 2\n",
        /pipelines\.mercari: unknown key\(s\) "requests_per_secnd" \(did you mean "requests_per_second"\?\)/,
      ],
    ] as const) {
      writeFileSync(path.join(cwd, "tidemark.yaml"), yaml);
      const r = await runCli(["job", "ls"], { cwd, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(line);
    }
  });

  it("job describe fits 80 columns when not on a terminal, and names params.yaml like fake books", async () => {
    const cwd = testTempDir("tm-first-hour-");
    for (const p of pipelines) {
      for (const t of p.jobTypes) {
        const r = await runCli(["job", "describe", t.name], { cwd });
        const wide = r.stdout
          .split("\n")
          .filter((l) => l.length > 80 && !l.trimStart().startsWith("npx tidemark job add "));
        expect({ type: t.name, wide }).toEqual({ type: t.name, wide: [] });
      }
    }
    const describe = await runCli(["job", "describe", "books.run"], { cwd });
    expect(describe.stdout).toContain("--params-file params.yaml");
    const running = await startPipelineFake("books", cwd);
    const hints = running.hints.join("\n");
    expect(hints).toContain("--params-file params.yaml");
    expect(hints).not.toContain("job.yaml");
  });

  it("-c takes the folder that holds tidemark.yaml", async () => {
    const cwd = testTempDir("tm-first-hour-");
    writeFileSync(path.join(cwd, "tidemark.yaml"), "data_dir: ./here\n");
    const r = await runCli(["-c", ".", "db", "status"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(path.join(cwd, "here"));
  });
});
