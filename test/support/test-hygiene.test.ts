import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { postgresSkipLine } from "./postgres-skip-reporter.ts";
import { leftoverLine, listLeftovers } from "./temp-dir-guard.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VITEST = path.join(
  path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")),
  "vitest.mjs",
);

/** Test code: suites, conformance suites, fixtures and helpers under test/ or a testing/ folder. */
function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) testFiles(full, out);
    else if (entry.name.endsWith(".ts")) {
      const rel = path.relative(ROOT, full).split(path.sep).join("/");
      const isTestCode =
        /\.(test|conformance|fixture)\.ts$/.test(rel) ||
        rel.startsWith("test/") ||
        rel.split("/").includes("testing");
      if (isTestCode) out.push(rel);
    }
  }
  return out;
}

/** Runs the fixture project (test/support/fixtures/hygiene) with the real guard and reporter. */
function runFixtureProject(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  // The child is a run of its own, not a worker of this one.
  for (const key of Object.keys(childEnv)) if (key.startsWith("VITEST")) delete childEnv[key];
  for (const key of ["TIDEMARK_TEST_PG_URL", "CI"]) if (!(key in env)) delete childEnv[key];
  childEnv.NO_COLOR = "1";
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [VITEST, "run", "--config", "test/support/fixtures/hygiene/vitest.config.ts"],
      { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 },
    );
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

describe("test hygiene", () => {
  it("no test file hard-codes the system temp folder (use os.tmpdir())", () => {
    const needle = ["", "tmp"].join("/");
    const offenders = testFiles(path.join(ROOT, "src"))
      .concat(testFiles(path.join(ROOT, "test")))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), "utf8")
          .split("\n")
          .flatMap((line, i) => (line.includes(needle) ? [`${file}:${i + 1}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it("a run reports its leftovers by prefix and ignores tsx's cache", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tm-guard-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    expect(listLeftovers(dir)).toEqual([]);
    expect(leftoverLine([])).toBeUndefined();
    for (const name of ["tm-cli-a1B2c3", "tm-cli-Zz9yX8", "tm-data-q1w2e3"]) {
      mkdirSync(path.join(dir, name));
    }
    symlinkSync(dir, path.join(dir, "tsx-0"));
    const leftovers = listLeftovers(dir);
    expect(leftovers).toEqual([
      { pattern: "tm-cli-*", count: 2 },
      { pattern: "tm-data-*", count: 1 },
    ]);
    expect(leftoverLine(leftovers)).toMatch(
      /left 3 temp entries behind.*tm-cli-\* ×2, tm-data-\*$/,
    );
  });

  it("counts skipped Postgres tests only when TIDEMARK_TEST_PG_URL is unset", () => {
    const names = ["a [postgres] > x", "a [postgres] > y", "a [sqlite] > z"];
    expect(postgresSkipLine(names, {})).toMatch(
      /^\[tidemark tests\] 2 Postgres tests did not run: TIDEMARK_TEST_PG_URL is not set/,
    );
    expect(postgresSkipLine(names, { TIDEMARK_TEST_PG_URL: "postgres://x" })).toBeUndefined();
    expect(postgresSkipLine(["a [sqlite] > z"], {})).toBeUndefined();
  });

  it("without Postgres a run counts its variants as skipped, says so once, and fails on a leak", async () => {
    const { code, output } = await runFixtureProject({});
    // dialect-matrix.fixture.ts: 2 tests per dialect; leaky.fixture.ts: 1 test leaving a folder.
    expect(output).toMatch(/Tests\s+3 passed \| 2 skipped \(5\)/);
    const notices = output.split("\n").filter((l) => l.includes("Postgres test"));
    expect(notices).toEqual([
      "[tidemark tests] 2 Postgres tests did not run: TIDEMARK_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test; required when CI is set)",
    ]);
    expect(output).toContain("tests left 1 temp entry behind");
    expect(output).toContain("tm-forgotten-*");
    expect(code).toBe(1);
  });

  it("on CI a missing TIDEMARK_TEST_PG_URL fails the run instead of skipping", async () => {
    const { code, output } = await runFixtureProject({ CI: "1" });
    expect(output).toContain("CI is set but TIDEMARK_TEST_PG_URL is not");
    expect(output).not.toContain("Postgres tests did not run");
    expect(code).toBe(1);
  });
});
