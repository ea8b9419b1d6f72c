import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBlobStoreConformance } from "../../testing/blobs/blob-store-conformance.ts";
import { validateBlobKey } from "./blob-key.ts";
import { BlobNotFoundError, InvalidBlobKeyError } from "./blob-store.ts";
import { FsBlobStore } from "./fs-blob-store.ts";
import { isStrictlyInside } from "./fs-dirs.ts";
import { tempNameFor } from "./fs-temp-name.ts";
import { FsWorker } from "./fs-worker.ts";

let base: string;
let counter = 0;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "tidemark-fs-blobs-"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A store on a root folder no other test uses (the folder is not created: put must do it). */
function freshStore(): FsBlobStore {
  counter++;
  return new FsBlobStore(path.join(base, `store-${counter}`, "root"));
}

describeBlobStoreConformance("fs", freshStore);

// Until the shared thread runs, a call or two is made on the main thread, so the suite above may
// run either way: here every read, stat and put goes through a worker thread.
const eager = new FsWorker({ minBatch: 1 });
describeBlobStoreConformance("fs, every call on the worker thread", () => {
  counter++;
  return new FsBlobStore(path.join(base, `store-${counter}`, "root"), { worker: eager });
});

describe("FsBlobStore (fs specifics)", () => {
  it("stores key a/b.json as the plain file <root>/a/b.json", async () => {
    const store = freshStore();
    await store.put("a/b.json", '{"ok":true}');
    expect(await readFile(path.join(store.root, "a", "b.json"), "utf8")).toBe('{"ok":true}');
  });

  it("leaves no temp files after put", async () => {
    const store = freshStore();
    await store.put("x/one", "1");
    await store.put("x/one", Readable.from([Buffer.from("2")]));
    await store.put("x/y/two", new Uint8Array([2]));
    expect(await allFiles(store.root)).toEqual(["x/one", "x/y/two"]);
  });

  it("on a failed stream leaves no object, no temp file and the old version intact", async () => {
    const store = freshStore();
    await store.put("keep/me", "old version");
    await expect(store.put("keep/me", failingStream())).rejects.toThrow("boom");
    await expect(store.put("brand/new/key", failingStream())).rejects.toThrow("boom");
    expect(await readFile(path.join(store.root, "keep", "me"), "utf8")).toBe("old version");
    expect(await store.exists("brand/new/key")).toBe(false);
    // Only the old object remains: no temp files, and the folders made for the failed key are gone.
    expect(await allFiles(store.root)).toEqual(["keep/me"]);
    expect(await readdir(store.root)).toEqual(["keep"]);
  });

  it("skips leftover temp files (from a crash) in list", async () => {
    const store = freshStore();
    await store.put("t/real", "r");
    await writeFile(path.join(store.root, "t", tempNameFor("real")), "half-written");
    expect(await keys(store)).toEqual(["t/real"]);
  });

  it("refuses keys that look like its temp files", async () => {
    const store = freshStore();
    await expect(store.put(`a/${tempNameFor("x")}`, "x")).rejects.toBeInstanceOf(
      InvalidBlobKeyError,
    );
  });

  it("prunes folders emptied by delete, but never the root", async () => {
    const store = freshStore();
    await store.put("p/q/r/s", "deep");
    await store.put("p/keep", "k");
    await store.delete("p/q/r/s");
    expect(await readdir(path.join(store.root, "p"))).toEqual(["keep"]);
    await store.delete("p/keep");
    expect(await readdir(store.root)).toEqual([]);
    expect((await stat(store.root)).isDirectory()).toBe(true);
  });

  it("lists nothing (and does not fail) before the root exists", async () => {
    const store = freshStore();
    expect(await keys(store)).toEqual([]);
    expect(await store.head("x")).toBeUndefined();
    await expect(store.get("x")).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it("does not list files whose names are not valid keys", async () => {
    const store = freshStore();
    await store.put("ok", "1");
    await writeFile(path.join(store.root, "bad\\name"), "x");
    await writeFile(path.join(store.root, "bad\nname"), "x");
    expect(await keys(store)).toEqual(["ok"]);
  });

  it("notices a file changed behind its back (ETag cache is keyed by inode, size, mtime)", async () => {
    const store = freshStore();
    await store.put("c/file", "one");
    const before = await store.head("c/file");
    await writeFile(path.join(store.root, "c", "file"), "two, longer");
    const after = await store.head("c/file");
    expect(after?.etag).not.toBe(before?.etag);
    expect(after?.size).toBe(11);
  });

  it("never resolves a key outside its root", async () => {
    const parent = path.join(base, "escape");
    await mkdir(path.join(parent, "root"), { recursive: true });
    await writeFile(path.join(parent, "secret"), "do not touch");
    const store = new FsBlobStore(path.join(parent, "root"));
    for (const key of ["../secret", "a/../../secret", "/etc/passwd", "..\\secret", "C:\\x", ".."]) {
      await expect(store.put(key, "x"), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      await expect(store.delete(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
    }
    expect(await readFile(path.join(parent, "secret"), "utf8")).toBe("do not touch");

    // Any string either is refused or maps strictly inside the root.
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc
            .array(fc.constantFrom("a", "..", ".", "", "b", "\\", ":", "C:", "..a"), {
              maxLength: 6,
            })
            .map((parts) => parts.join("/")),
        ),
        (key) => {
          let file: string;
          try {
            file = store.pathFor(key);
          } catch (err) {
            return err instanceof InvalidBlobKeyError;
          }
          validateBlobKey(key); // accepted keys are exactly the valid ones
          return isStrictlyInside(file, store.root);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** All files below root as `/`-separated relative paths, sorted; includes hidden and temp files. */
async function allFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

async function keys(store: FsBlobStore): Promise<string[]> {
  const out: string[] = [];
  for await (const info of store.list()) out.push(info.key);
  return out;
}

function failingStream(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < 4) this.push(Buffer.alloc(256 * 1024, 7));
      else this.destroy(new Error("boom"));
    },
  });
}
