import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../testing/temp-dir.ts";
import { FsWorker } from "./fs-worker.ts";

describe("FsWorker", () => {
  it("reads many files asked for at once, small and large, each with its own bytes", async () => {
    const dir = testTempDir("tm-batch-read-");
    const files = Array.from({ length: 50 }, (_, i) => {
      const file = path.join(dir, `f${i}.json`);
      // Sizes on both sides of Buffer's pool (4 KiB): pooled bytes must not leak across files.
      writeFileSync(file, String(i).repeat(i * 200 + 1));
      return file;
    });
    const reader = new FsWorker();
    const got = await Promise.all(files.map((f) => reader.read(f)));
    expect(got.map((bytes) => bytes.toString())).toEqual(
      files.map((_, i) => String(i).repeat(i * 200 + 1)),
    );
  });

  it("rejects a missing file or a folder with the fs error code, next to files that read", async () => {
    const dir = testTempDir("tm-batch-read-");
    writeFileSync(path.join(dir, "ok.txt"), "ok");
    mkdirSync(path.join(dir, "folder"));
    const reader = new FsWorker();
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
    const reader = new FsWorker({ slowReadMs: 0 });
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
    const reader = new FsWorker();
    expect((await reader.read(path.join(dir, "one.txt"))).toString()).toBe("one");
    await expect(reader.read(path.join(dir, "none.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("FsWorker puts and stats", () => {
  const md5 = (b: string | Uint8Array) => createHash("md5").update(b).digest("hex");

  it("writes files put together on the worker: bytes, size, MD5 and stamp as on disk", async () => {
    const root = testTempDir("tm-worker-put-");
    const fs = new FsWorker();
    // A Buffer from the shared pool (a view on a larger buffer) must write only its own bytes.
    const pooled = Buffer.from("pooled bytes");
    const bodies: Array<string | Uint8Array> = [
      '{"名前":"テスト"}',
      pooled,
      new Uint8Array([1, 2, 3]),
      "",
      "x".repeat(100_000),
    ];
    const files = bodies.map((_, i) => path.join(root, "a", `n=${i}`, `f${i}.json`));
    const written = await Promise.all(files.map((f, i) => fs.put(f, root, bodies[i] as string)));
    expect(fs.running).toBe(true);
    for (const [i, w] of written.entries()) {
      const body = bodies[i] as string | Uint8Array;
      expect(readFileSync(files[i] as string)).toEqual(Buffer.from(body));
      expect(w.size).toBe(Buffer.byteLength(body));
      expect(w.md5.toString("hex")).toBe(md5(body));
      const st = statSync(files[i] as string, { bigint: true });
      expect([w.stats.ino, w.stats.size, w.stats.mtimeNs]).toEqual([st.ino, st.size, st.mtimeNs]);
      expect(readdirSync(path.dirname(files[i] as string))).toEqual([`f${i}.json`]);
    }
  });

  it("rejects a put that cannot land with its code and leaves no temp file; the others land", async () => {
    const root = testTempDir("tm-worker-put-");
    mkdirSync(path.join(root, "d", "taken.json"), { recursive: true });
    writeFileSync(path.join(root, "file"), "a file, not a folder");
    const fs = new FsWorker();
    const targets = ["d/taken.json", "d/ok1.json", "file/under.json", "d/ok2.json", "e/ok3.json"];
    const got = await Promise.allSettled(targets.map((t) => fs.put(path.join(root, t), root, t)));
    expect(fs.running).toBe(true);
    const codes = got.map((r) =>
      r.status === "fulfilled" ? "ok" : (r.reason as NodeJS.ErrnoException).code,
    );
    expect(codes).toEqual(["EISDIR", "ok", "EEXIST", "ok", "ok"]);
    expect(readdirSync(path.join(root, "d")).sort()).toEqual([
      "ok1.json",
      "ok2.json",
      "taken.json",
    ]);
    expect(readFileSync(path.join(root, "e", "ok3.json"), "utf8")).toBe("e/ok3.json");
  });

  it("prunes the folders a failed put created, up to the root", async () => {
    const root = testTempDir("tm-worker-put-");
    const fs = new FsWorker();
    await Promise.all(["a", "b", "c", "d"].map((n) => fs.put(path.join(root, n), root, n)));
    expect(fs.running).toBe(true);
    // A name too long for the file system (its temp file gets a short name) fails the rename,
    // after the folders and the temp file exist.
    const long = path.join(root, "x", "y", `${"n".repeat(300)}.json`);
    await expect(fs.put(long, root, "body")).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    expect(readdirSync(root).sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("stats files on the worker: a file's stamp, nothing for a missing path or a folder", async () => {
    const root = testTempDir("tm-worker-stat-");
    writeFileSync(path.join(root, "f.json"), "{}");
    mkdirSync(path.join(root, "folder"));
    const fs = new FsWorker();
    const names = ["f.json", "missing.json", "folder", "f.json/below", "f.json"];
    const got = await Promise.all(names.map((n) => fs.stat(path.join(root, n))));
    expect(fs.running).toBe(true);
    const st = statSync(path.join(root, "f.json"), { bigint: true });
    expect(got.map((s) => s?.ino)).toEqual([st.ino, undefined, undefined, undefined, st.ino]);
    expect(got[0]?.mtimeNs).toBe(st.mtimeNs);
    // A lone stat before the worker runs is made on this thread, with the same answers.
    const alone = new FsWorker();
    expect((await alone.stat(path.join(root, "f.json")))?.ino).toBe(st.ino);
    expect(await alone.stat(path.join(root, "missing.json"))).toBeUndefined();
    expect(alone.running).toBe(false);
  });
});
