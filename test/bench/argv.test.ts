import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { benchArgs, numberProblem } from "../../bench/support/argv.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("benchmark options", () => {
  it("take whole numbers at or above their minimum, or their fallback when absent", () => {
    const args = benchArgs(["--rows", "5000", "--latency-ms", "0", "--10m"]);
    expect(args.num("--rows", 1_000_000)).toBe(5000);
    expect(args.num("--latency-ms", 2, 0)).toBe(0);
    expect(args.num("--repeat", 5)).toBe(5);
    expect(args.flag("--10m")).toBe(true);
    expect(numberProblem("--rows", "1e3", 1)).toBeUndefined();
  });

  it("name the option and what it got for anything else", () => {
    expect(numberProblem("--rows", "abc", 1)).toBe(
      '--rows: expected a whole number >= 1, got "abc"',
    );
    expect(numberProblem("--repeat", "2.5", 1)).toMatch(/^--repeat: .* got "2.5"$/);
    expect(numberProblem("--xlsx-rows", "0", 14)).toMatch(/>= 14, got "0"$/);
    expect(numberProblem("--rows", "", 1)).toMatch(/got ""$/);
    expect(numberProblem("--rows", undefined, 1)).toMatch(/got nothing$/);
  });

  it("a bad one stops the benchmark with one line and exit 2, before it makes its work folder", () => {
    const tmp = testTempDir("tm-bench-argv-");
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "bench/snapshots.ts", "--xlsx-rows", "0"],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, TMPDIR: tmp } },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('--xlsx-rows: expected a whole number >= 14, got "0"');
    expect(r.stdout).toBe("");
    expect(readdirSync(tmp).filter((n) => n.startsWith("tidemark-bench-"))).toEqual([]);
  });
});
