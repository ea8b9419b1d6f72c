import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { warmUpKeyCheck } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-check-warm-up.ts";

const savedTmp = process.env.TMPDIR;
let dir: string | undefined;
afterEach(() => {
  process.env.TMPDIR = savedTmp;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("key check warm-up", () => {
  it("runs once per thread in the temp folder and leaves nothing there", () => {
    dir = mkdtempSync(path.join(tmpdir(), "tm-warm-up-"));
    process.env.TMPDIR = dir;
    expect(warmUpKeyCheck()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(warmUpKeyCheck()).toBe(false);
  });
});
