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

  it("reads batches that come after a slow one (all in flight at once) with the same results", async () => {
    const dir = testTempDir("tm-batch-read-");
    const names = Array.from({ length: 30 }, (_, i) => `f${i}.json`);
    for (const [i, n] of names.entries())
      writeFileSync(path.join(dir, n), `{"n":${i},"s":"データ"}`);
    mkdirSync(path.join(dir, "folder"));
    // Every batch counts as slow: the first is read one file at a time, the next ones at once.
    const reader = new BatchFileReader({ slowReadMs: 0 });
    const readAll = () =>
      Promise.allSettled([
        ...names.map((n) => reader.readText(path.join(dir, n))),
        reader.read(path.join(dir, "f3.json")),
        reader.read(path.join(dir, "missing.json")),
        reader.readText(path.join(dir, "folder")),
      ]);
    const shape = (got: Awaited<ReturnType<typeof readAll>>) =>
      got.map((r) =>
        r.status === "rejected"
          ? (r.reason as NodeJS.ErrnoException).code
          : Buffer.isBuffer(r.value)
            ? r.value.toString()
            : `${r.value.text} ${r.value.sha256.length}`,
      );
    const first = shape(await readAll());
    expect(first.slice(0, 2)).toEqual(['{"n":0,"s":"データ"} 64', '{"n":1,"s":"データ"} 64']);
    expect(first.slice(-3)).toEqual(['{"n":3,"s":"データ"}', "ENOENT", "EISDIR"]);
    expect(shape(await readAll())).toEqual(first);
    expect(shape(await readAll())).toEqual(first);
  });

  it("reads a lone file without a worker thread", async () => {
    const dir = testTempDir("tm-batch-read-");
    writeFileSync(path.join(dir, "one.txt"), "one");
    const reader = new BatchFileReader();
    expect((await reader.read(path.join(dir, "one.txt"))).toString()).toBe("one");
    await expect(reader.read(path.join(dir, "none.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
