import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { FsBlobStore } from "../../infra/blobs/fs-blob-store.ts";
import { ConfigError } from "../../infra/errors.ts";
import { CountingBlobStore } from "../../testing/entity-etl/counting-blob-store.ts";
import { startS3rver } from "../../testing/s3rver.ts";
import { canonicalJson } from "../hashing/canonical-json.ts";
import { contentHash, sha256Hex } from "../hashing/content-hash.ts";
import { RAW_ENV_MARKER_KEY, RawEnvMismatchError } from "./raw-env-marker.ts";
import { rawKey } from "./raw-key.ts";
import { RawStore } from "./raw-store.ts";

let s3: Awaited<ReturnType<typeof startS3rver>>;
beforeAll(async () => {
  s3 = await startS3rver("tidemark-etl-test");
});
afterAll(async () => {
  await s3?.close();
});

function fsStore(): FsBlobStore {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-raw-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return new FsBlobStore(dir);
}

const stores = {
  fs: () => fsStore(),
  s3: () => s3.store(`raw-${Math.random().toString(16).slice(2)}/`),
};

const target = { source: "fake", entity: "item", sourceId: "shop:123" };
const doc = { title: "夏のギフト", price: 3980, tags: [1, 2], z: null, a: 0.5 };

for (const [driver, open] of Object.entries(stores)) {
  describe(`RawStore [${driver}]`, () => {
    it("saves the canonical JSON under key scheme A, its SHA-256 being the key's hash", async () => {
      const raw = new RawStore(open(), "dev");
      const put = await raw.putDocument(target, doc);
      const hash = contentHash(doc);
      expect(put.contentHash).toBe(hash);
      expect(put.key).toBe(`raw/source=fake/entity=item/source_id=shop:123/hash=${hash}.json`);
      expect(put.created).toBe(true);
      const text = await raw.getText(put.key);
      expect(text).toBe(canonicalJson(doc));
      expect(sha256Hex(text)).toBe(hash);
      expect(put.savedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(put.etag).toMatch(/^"[0-9a-f]{32}"$/);
    });

    it("never writes a key twice: an existing object is reported, not replaced", async () => {
      const blobs = new CountingBlobStore(open());
      const raw = new RawStore(blobs, "dev");
      const first = await raw.putDocument(target, doc);
      const again = await raw.putDocument(target, { ...doc });
      expect(again).toEqual({ ...first, created: false });
      expect(blobs.rawPuts).toEqual([first.key]);
      expect((await raw.versions(target)).map((v) => v.contentHash)).toEqual([first.contentHash]);
    });

    it("refuses a document whose hash is not the one the caller compared", async () => {
      const blobs = new CountingBlobStore(open());
      const raw = new RawStore(blobs, "dev");
      await expect(raw.putDocument(target, doc, "0".repeat(64))).rejects.toThrow(/hashes to/);
      expect(blobs.rawPuts).toEqual([]);
    });

    it("reads an object back only when its bytes hash to the ledger's hash", async () => {
      const blobs = open();
      const raw = new RawStore(blobs, "dev");
      const replaced = { title: "\uFFFD" };
      const put = await raw.putDocument(target, replaced);
      const text = canonicalJson(replaced);
      expect(await raw.getVerifiedText(put.key, put.contentHash)).toBe(text);
      // Other bytes that decode to the same text: the lone invalid byte 0xFF reads as U+FFFD.
      const at = text.indexOf("\uFFFD");
      const bytes = [
        Buffer.from(text.slice(0, at)),
        Buffer.from([0xff]),
        Buffer.from(text.slice(at + 1)),
      ];
      await blobs.put(put.key, Buffer.concat(bytes));
      await expect(raw.getVerifiedText(put.key, put.contentHash)).rejects.toThrow(
        `raw object ${put.key} hashes to`,
      );
    });

    it("lists every version of a target", async () => {
      const raw = new RawStore(open(), "dev");
      const one = await raw.putDocument(target, { v: 1 });
      const two = await raw.putDocument(target, { v: 2 });
      await raw.putDocument({ ...target, sourceId: "shop:1234" }, { v: 3 });
      const versions = await raw.versions(target);
      expect(versions.map((v) => v.key).sort()).toEqual([one.key, two.key].sort());
    });

    it("a location written by prod refuses dev, which writes nothing", async () => {
      const blobs = open();
      await new RawStore(blobs, "prod").putDocument(target, doc);
      const dev = new RawStore(new CountingBlobStore(blobs), "dev");
      const err = await dev.putDocument(target, { other: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RawEnvMismatchError);
      expect((err as Error).message).toMatch(
        /^raw store \S+ belongs to env "prod" \(raw\/_env\.json\), this run's env is "dev"/,
      );
      expect((err as Error).message).toContain(driver === "fs" ? "/" : "s3://tidemark-etl-test/");
      await expect(dev.checkEnv()).rejects.toBeInstanceOf(RawEnvMismatchError);
      expect((dev.blobs as CountingBlobStore).rawPuts).toEqual([]);
      // prod keeps writing there.
      await expect(new RawStore(blobs, "prod").putDocument(target, { v: 9 })).resolves.toBeTruthy();
    });

    it("checking an unowned location writes nothing; claiming it writes the marker", async () => {
      const blobs = open();
      const raw = new RawStore(blobs, "dev");
      await raw.checkEnv();
      expect(await blobs.exists(RAW_ENV_MARKER_KEY)).toBe(false);
      await raw.claimEnv();
      expect(JSON.parse((await blobs.get(RAW_ENV_MARKER_KEY)).toString())).toEqual({ env: "dev" });
    });

    it("an unreadable marker is a configuration error", async () => {
      const blobs = open();
      await blobs.put(RAW_ENV_MARKER_KEY, "not json");
      await expect(new RawStore(blobs, "dev").claimEnv()).rejects.toThrow(ConfigError);
      await expect(new RawStore(blobs, "dev").claimEnv()).rejects.toThrow(/does not name an env/);
    });
  });
}

describe("rawKey", () => {
  const hash = "a".repeat(64);
  it("refuses ids that would change the key's shape", () => {
    for (const bad of ["", ".", "..", "a/b", "a\\b", "a\nb"]) {
      expect(() => rawKey({ ...target, sourceId: bad, contentHash: hash })).toThrow(/source_id/);
    }
    expect(() => rawKey({ ...target, entity: "x/y", contentHash: hash })).toThrow(/entity/);
    expect(() => rawKey({ ...target, contentHash: "ABC" })).toThrow(/SHA-256/);
  });
});
