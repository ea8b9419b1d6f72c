import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../testing/temp-dir.ts";
import { BatchFileReader } from "./fs-read-worker.ts";

describe("BatchFileReader", () => {
  it("reads many files asked for at once, small and large, each with its own bytes", async () => {
    const dir = testTempDir("tm-batch-read-");
    const files = Array.from({ length: 50 }, (_, i) => {
      const file = path.join(dir, `f${i}.json`);
      // Sizes on both sides of Buffer's pool (4 KiB): pooled bytes must not leak across files.
      writeFileSync(file, String(i).repeat(i * 200 + 1));
      return file;
    });
    const reader = new BatchFileReader();
    const got = await Promise.all(files.map((f) => reader.read(f)));
    expect(got.map((bytes) => bytes.toString())).toEqual(
      files.map((_, i) => String(i).repeat(i * 200 + 1)),
    );
  });

  it("rejects a missing file or a folder with the fs error code, next to files that read", async () => {
    const dir = testTempDir("tm-batch-read-");
    writeFileSync(path.join(dir, "ok.txt"), "ok");
    mkdirSync(path.join(dir, "folder"));
    const reader = new BatchFileReader();
    const names = ["ok.txt", "missing.txt", "folder", "ok.txt", "ok.txt"];
    const got = await Promise.allSettled(names.map((n) => reader.read(path.join(dir, n))));
    const codes = got.map((r) =>
      r.status === "fulfilled" ? r.value.toString() : (r.reason as NodeJS.ErrnoException).code,
    );
    expect(codes).toEqual(["ok", "ENOENT", "EISDIR", "ok", "ok"]);
  });

  it("reads a lone file without a worker thread", async () => {
    const dir = testTempDir("tm-batch-read-");
    writeFileSync(path.join(dir, "one.txt"), "one");
    const reader = new BatchFileReader();
    expect((await reader.read(path.join(dir, "one.txt"))).toString()).toBe("one");
    await expect(reader.read(path.join(dir, "none.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
