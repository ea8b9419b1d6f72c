import * as fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import {
  warmUpKeyCheck,
  warmUpRuns,
} from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-check-warm-up.ts";

// Every way the warm-up could reach the disk, seen through node:fs.
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return {
    ...real,
    mkdtempSync: vi.fn(real.mkdtempSync),
    openSync: vi.fn(real.openSync),
    writeFileSync: vi.fn(real.writeFileSync),
  };
});

describe("key check warm-up", () => {
  it("runs once per thread and touches no file (a thread runs it as it starts, before it knows the run's folders)", () => {
    for (const fn of [fs.mkdtempSync, fs.openSync, fs.writeFileSync]) vi.mocked(fn).mockClear();

    expect(warmUpKeyCheck()).toBe(true);
    expect(warmUpKeyCheck()).toBe(false);

    for (const fn of [fs.mkdtempSync, fs.openSync, fs.writeFileSync])
      expect(vi.mocked(fn)).not.toHaveBeenCalled();
  });

  it("takes every path of the check: a previous bucket as a file, as bytes, none; keys added, removed, changed, unchanged; a duplicate; with line tables and without", () => {
    const results = warmUpRuns();
    expect(results).toHaveLength(6);
    const figures = results.map(({ buckets: [b] }) => [
      b!.added,
      b!.removed,
      b!.changed,
      b!.unchanged,
    ]);
    // Runs against a previous bucket (a file, then bytes), then without one; twice (tables, none).
    const diffed = [8, 8, 8, 8];
    const first = [24, 0, 0, 0];
    expect(figures).toEqual([diffed, diffed, first, diffed, diffed, first]);
    for (const r of results)
      expect(r.duplicates).toEqual([{ rowNumber: 26, identity: '"c"\t"k16"' }]);
    expect(results.map((r) => r.buckets[0]!.samples.removed.length)).toEqual([8, 8, 0, 8, 8, 0]);
  });
});
