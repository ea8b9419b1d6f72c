import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  InvalidBlobKeyError,
} from "../../infra/blobs/blob-store.ts";
import { describeTextReads } from "./blob-store-text-conformance.ts";

/** Creates a fresh, empty store for one test (each test gets its own). */
export type BlobStoreFactory = () => BlobStore | Promise<BlobStore>;

/** Known limits of the backend under test (not of the driver), to skip the tests they break. */
export interface ConformanceOptions {
  /**
   * False when concurrent puts to one key can interleave on the server (s3rver writes objects in
   * place; real S3 and the fs driver replace atomically). Default true.
   */
  atomicConcurrentPuts?: boolean;
}

// Unsafe keys every method must refuse (see validateBlobKey).
const INVALID_KEYS = ["../x", "/abs", "a/../b", "a\0b", "a\\b", "", "a//b", "./a", "a/", "C:\\x"];
// Prefixes list() must refuse: unsafe, or not ending in "/".
const INVALID_PREFIXES = ["../", "/", "/abs/", "a/../", "a//", "a\\b/", "a\0/", "a"];
// Big enough to span many stream chunks and, on S3, more than one multipart-sized part.
const BIG_SIZE = 5 * 1024 * 1024 + 123;
// Generous: S3 reports whole seconds and s3rver runs on the same clock, real S3 may drift.
const CLOCK_SLACK_MS = 5_000;
const SLOW_TEST_MS = 60_000;

/**
 * Registers a Vitest suite of behaviour every BlobStore driver must show. factory is called
 * before each test and must return an empty store that no other test uses.
 */
export function describeBlobStoreConformance(
  name: string,
  factory: BlobStoreFactory,
  options: ConformanceOptions = {},
): void {
  describe(`BlobStore conformance: ${name}`, () => {
    let store: BlobStore;
    beforeEach(async () => {
      store = await factory();
    });

    describeTextReads(() => store);

    it("names its driver", () => {
      expect(["fs", "s3"]).toContain(store.driver);
    });

    describe("put and get", () => {
      it("round-trips bytes, including every byte value", async () => {
        const bytes = new Uint8Array(512).map((_, i) => i % 256);
        const info = await store.put("bytes/all.bin", bytes);
        expect(info).toMatchObject({ key: "bytes/all.bin", size: 512, etag: md5Etag(bytes) });
        expect(await store.get("bytes/all.bin")).toEqual(Buffer.from(bytes));
      });

      it("round-trips an empty object", async () => {
        const info = await store.put("empty", new Uint8Array(0));
        expect(info.size).toBe(0);
        expect(info.etag).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
        expect((await store.get("empty")).length).toBe(0);
      });

      it("stores strings as UTF-8 (Japanese, Cyrillic, emoji)", async () => {
        const text = "東京の天気は晴れ — Погода в Москве: ясно 🌤";
        const info = await store.put("text/weather.txt", text, { contentType: "text/plain" });
        const expected = Buffer.from(text, "utf8");
        expect(info.size).toBe(expected.length);
        expect(info.etag).toBe(md5Etag(expected));
        const got = await store.get("text/weather.txt");
        expect(got).toEqual(expected);
        expect(got.toString("utf8")).toBe(text);
      });

      it(
        "streams a Readable of 5 MB or more",
        async () => {
          const data = randomBytes(BIG_SIZE);
          const info = await store.put("big/blob.bin", Readable.from(chunksOf(data, 64 * 1024)));
          expect(info).toMatchObject({ size: BIG_SIZE, etag: md5Etag(data) });
          const got = await store.get("big/blob.bin");
          expect(got.length).toBe(BIG_SIZE);
          expect(got.equals(data)).toBe(true);
        },
        SLOW_TEST_MS,
      );

      it("accepts an async iterable of byte chunks", async () => {
        const parts = [Buffer.from("alpha,"), new Uint8Array([0, 1, 2]), Buffer.from("омега")];
        async function* generate(): AsyncGenerator<Uint8Array> {
          for (const part of parts) {
            await tick(); // really asynchronous, like a network source
            yield part;
          }
        }
        const whole = Buffer.concat(parts);
        const info = await store.put("iter/data", generate());
        expect(info).toMatchObject({ size: whole.length, etag: md5Etag(whole) });
        expect(await store.get("iter/data")).toEqual(whole);
      });

      it("encodes string chunks of a Readable as UTF-8", async () => {
        await store.put("iter/strings", Readable.from(["héllo ", "мир"]));
        expect((await store.get("iter/strings")).toString("utf8")).toBe("héllo мир");
      });

      it("overwrites an existing key", async () => {
        await store.put("over/key", "first version, longer");
        const second = await store.put("over/key", "second");
        expect(second).toMatchObject({ size: 6, etag: md5Etag(Buffer.from("second")) });
        expect((await store.get("over/key")).toString()).toBe("second");
        expect(await store.head("over/key")).toEqual(second);
        expect(await keysOf(store.list())).toEqual(["over/key"]);
      });

      it.skipIf(options.atomicConcurrentPuts === false)(
        "keeps a consistent object under concurrent puts to one key",
        async () => {
          const versions = ["v1", "v2 longer", "v3 longer still", "v4", "v5!"].map((v) =>
            Buffer.from(v.repeat(1000)),
          );
          await Promise.all(versions.map((v) => store.put("race/key", v)));
          const got = await store.get("race/key");
          expect(versions.some((v) => v.equals(got))).toBe(true);
          expect((await store.head("race/key"))?.etag).toBe(md5Etag(got));
        },
      );

      it("round-trips keys with spaces, punctuation and non-ASCII letters", async () => {
        const keys = ["docs/a b+c=d@e.json", "日本/データ.json", "кириллица/файл.txt", "x/..y/z."];
        for (const key of keys) await store.put(key, key);
        for (const key of keys) expect((await store.get(key)).toString()).toBe(key);
        expect(await keysOf(store.list())).toEqual([...keys].sort(byUtf8));
      });

      it("leaves the previous version when a streamed body fails midway", async () => {
        await store.put("fail/key", "previous");
        await expect(store.put("fail/key", failingStream())).rejects.toThrow("source broke");
        await expect(store.put("fail/new", failingStream())).rejects.toThrow("source broke");
        expect((await store.get("fail/key")).toString()).toBe("previous");
        expect(await store.exists("fail/new")).toBe(false);
        expect(await keysOf(store.list())).toEqual(["fail/key"]);
      });
    });

    describe("head and exists", () => {
      it("describe a present object like put did", async () => {
        const info = await store.put("h/present.txt", "here");
        expect(await store.head("h/present.txt")).toEqual(info);
        expect(await store.exists("h/present.txt")).toBe(true);
      });

      it("report an absent object", async () => {
        expect(await store.head("h/absent.txt")).toBeUndefined();
        expect(await store.exists("h/absent.txt")).toBe(false);
      });

      it("do not treat a key's parent 'folder' as an object", async () => {
        await store.put("h/dir/file", "x");
        expect(await store.head("h/dir")).toBeUndefined();
        expect(await store.exists("h/dir")).toBe(false);
        await expect(store.get("h/dir")).rejects.toBeInstanceOf(BlobNotFoundError);
        await expect(store.getStream("h/dir")).rejects.toBeInstanceOf(BlobNotFoundError);
        await store.delete("h/dir"); // no object there: a no-op, must not remove h/dir/file
        expect(await store.exists("h/dir/file")).toBe(true);
      });

      it("do not see below an object's key", async () => {
        await store.put("h/file", "x");
        expect(await store.head("h/file/below")).toBeUndefined();
        expect(await store.exists("h/file/below")).toBe(false);
        await expect(store.get("h/file/below")).rejects.toBeInstanceOf(BlobNotFoundError);
      });
    });

    describe("list", () => {
      // Deliberately unsorted; `a-c` sorts before `a/…` (`-` < `/`) although folder `a` would
      // come first in a naive folder walk.
      const keys = ["b", "a/2", "ab/1", "a/1", "a/10", "a-c", "a/sub/x", "c.txt", "a/sub/y/z"];
      const sorted = ["a-c", "a/1", "a/10", "a/2", "a/sub/x", "a/sub/y/z", "ab/1", "b", "c.txt"];

      beforeEach(async () => {
        for (const key of keys) await store.put(key, `content of ${key}`);
      });

      it("returns every key in byte order for the empty prefix", async () => {
        expect(await keysOf(store.list())).toEqual(sorted);
        expect(await keysOf(store.list(""))).toEqual(sorted);
      });

      it("returns only keys below a folder prefix, nested ones included", async () => {
        expect(await keysOf(store.list("a/"))).toEqual([
          "a/1",
          "a/10",
          "a/2",
          "a/sub/x",
          "a/sub/y/z",
        ]);
        expect(await keysOf(store.list("a/sub/"))).toEqual(["a/sub/x", "a/sub/y/z"]);
        expect(await keysOf(store.list("ab/"))).toEqual(["ab/1"]);
      });

      it("returns nothing for a prefix that matches nothing", async () => {
        expect(await keysOf(store.list("zzz/"))).toEqual([]);
        expect(await keysOf(store.list("a/sub/y/z/"))).toEqual([]); // z is an object, not a folder
        expect(await keysOf(store.list("b/"))).toEqual([]);
      });

      it("reports the same metadata as head", async () => {
        for await (const info of store.list("a/")) {
          expect(await store.head(info.key)).toEqual(info);
        }
      });

      it("is empty for an empty store", async () => {
        const fresh = await factory();
        expect(await keysOf(fresh.list())).toEqual([]);
      });

      it("refuses unsafe prefixes and prefixes not ending in '/'", async () => {
        for (const prefix of INVALID_PREFIXES) {
          await expect(async () => collect(store.list(prefix)), prefix).rejects.toBeInstanceOf(
            InvalidBlobKeyError,
          );
        }
      });
    });

    describe("delete", () => {
      it("removes the object", async () => {
        await store.put("d/x/y", "bye");
        await store.put("d/x2", "stays");
        await store.delete("d/x/y");
        expect(await store.exists("d/x/y")).toBe(false);
        await expect(store.get("d/x/y")).rejects.toBeInstanceOf(BlobNotFoundError);
        expect(await keysOf(store.list())).toEqual(["d/x2"]);
      });

      it("is idempotent", async () => {
        await store.put("d/once", "x");
        await store.delete("d/once");
        await store.delete("d/once");
        await store.delete("d/never/existed");
        expect(await store.exists("d/once")).toBe(false);
      });

      it("allows putting the key again", async () => {
        await store.put("d/again/k", "1");
        await store.delete("d/again/k");
        await store.put("d/again/k", "2");
        expect((await store.get("d/again/k")).toString()).toBe("2");
      });
    });

    describe("etag and savedAt", () => {
      it("etag is the quoted MD5 of the content", async () => {
        const info = await store.put("e/one", "some content");
        expect(info.etag).toMatch(/^"[0-9a-f]{32}"$/);
        expect(info.etag).toBe(md5Etag(Buffer.from("some content")));
      });

      it("etag is stable for identical content and differs for different content", async () => {
        const a = await store.put("e/a", "same");
        const b = await store.put("e/b", Readable.from([Buffer.from("sa"), Buffer.from("me")]));
        const again = await store.put("e/a", "same");
        const other = await store.put("e/c", "different");
        expect(b.etag).toBe(a.etag);
        expect(again.etag).toBe(a.etag);
        expect(other.etag).not.toBe(a.etag);
      });

      it("savedAt is a recent ISO-8601 UTC timestamp", async () => {
        const before = Date.now();
        const info = await store.put("e/time", "now");
        const after = Date.now();
        expect(info.savedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/);
        const savedAt = Date.parse(info.savedAt);
        expect(savedAt).toBeGreaterThanOrEqual(before - CLOCK_SLACK_MS);
        expect(savedAt).toBeLessThanOrEqual(after + CLOCK_SLACK_MS);
      });
    });

    describe("getStream", () => {
      it("streams the object", async () => {
        const data = randomBytes(300 * 1024);
        await store.put("s/data.bin", data);
        const stream = await store.getStream("s/data.bin");
        expect(stream).toBeInstanceOf(Readable);
        expect((await readAll(stream)).equals(data)).toBe(true);
      });

      it("rejects with BlobNotFoundError for a missing key", async () => {
        await expect(store.getStream("s/missing")).rejects.toBeInstanceOf(BlobNotFoundError);
      });
    });

    describe("missing keys", () => {
      it("get rejects with BlobNotFoundError carrying the key", async () => {
        const err = await store.get("m/missing.json").catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BlobNotFoundError);
        expect((err as BlobNotFoundError).key).toBe("m/missing.json");
      });
    });

    describe("invalid keys", () => {
      const methods: Record<string, (s: BlobStore, key: string) => Promise<unknown>> = {
        put: (s, key) => s.put(key, "x"),
        putStream: (s, key) => s.put(key, Readable.from([Buffer.from("x")])),
        get: (s, key) => s.get(key),
        getTextAndDigest: (s, key) => s.getTextAndDigest(key),
        getStream: (s, key) => s.getStream(key),
        head: (s, key) => s.head(key),
        exists: (s, key) => s.exists(key),
        delete: (s, key) => s.delete(key),
      };
      for (const [method, call] of Object.entries(methods)) {
        it(`${method} refuses unsafe keys`, async () => {
          for (const key of INVALID_KEYS) {
            await expect(call(store, key), JSON.stringify(key)).rejects.toBeInstanceOf(
              InvalidBlobKeyError,
            );
          }
          expect(await keysOf(store.list())).toEqual([]);
        });
      }
    });
  });
}

function md5Etag(bytes: Uint8Array): string {
  return `"${createHash("md5").update(bytes).digest("hex")}"`;
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function* chunksOf(data: Buffer, size: number): Generator<Buffer> {
  for (let offset = 0; offset < data.length; offset += size)
    yield data.subarray(offset, offset + size);
}

/** A Readable that emits some data and then fails, like a dropped network download. */
function failingStream(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent < 3) {
        sent++;
        this.push(Buffer.alloc(64 * 1024, sent));
      } else {
        this.destroy(new Error("source broke"));
      }
    },
  });
}

async function collect(items: AsyncIterable<BlobInfo>): Promise<BlobInfo[]> {
  const out: BlobInfo[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function keysOf(items: AsyncIterable<BlobInfo>): Promise<string[]> {
  return (await collect(items)).map((info) => info.key);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
