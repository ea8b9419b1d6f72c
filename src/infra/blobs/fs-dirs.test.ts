import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fsyncDir } from "./fs-dirs.ts";

describe("fsyncDir", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("groups concurrent calls for one folder and resolves every caller", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tm-fsync-"));
    dirs.push(dir);
    const calls = Array.from({ length: 20 }, () => fsyncDir(dir));
    await expect(Promise.all(calls)).resolves.toHaveLength(20);
    // A later call after everything settled starts a fresh fsync.
    await expect(fsyncDir(dir)).resolves.toBeUndefined();
  });

  it("rejects every grouped caller when the folder cannot be opened", async () => {
    const missing = path.join(tmpdir(), `tm-fsync-missing-${process.pid}-${Date.now()}`);
    const calls = Array.from({ length: 5 }, () => fsyncDir(missing));
    const results = await Promise.allSettled(calls);
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    await expect(fsyncDir(missing)).rejects.toThrow(/ENOENT/);
  });
});
