import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { describeBlobStoreConformance } from "../../testing/blobs/blob-store-conformance.ts";
import { BlobNotFoundError } from "./blob-store.ts";
import { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.ts";

const BUCKET = "tidemark-test";

let server: S3rver;
let directory: string;
let spoolDir: string;
let endpoint: string;
let raw: S3Client;
const stores: S3BlobStore[] = [];

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), "tidemark-s3rver-"));
  spoolDir = await mkdtemp(path.join(os.tmpdir(), "tidemark-s3-spool-"));
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  raw = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
});

afterEach(() => {
  for (const store of stores.splice(0)) store.destroy();
});

afterAll(async () => {
  raw?.destroy();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
  await rm(spoolDir, { recursive: true, force: true });
});

/** Empties the bucket (s3rver's reset drops buckets too, so recreate it) and opens a store. */
async function freshStore(overrides: Partial<S3BlobStoreOptions> = {}): Promise<S3BlobStore> {
  server.reset();
  await server.configureBuckets();
  const store = new S3BlobStore({
    bucket: BUCKET,
    prefix: "tm/",
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    spoolDir,
    ...overrides,
  });
  stores.push(store);
  return store;
}

// s3rver streams each PUT straight into its object file, so concurrent puts to one key can
// interleave there; real S3 replaces objects atomically.
const s3rverLimits = { atomicConcurrentPuts: false };
describeBlobStoreConformance("s3 (s3rver)", () => freshStore(), s3rverLimits);
// Same suite with every streamed body spooled to a temp file instead of memory.
describeBlobStoreConformance(
  "s3 (s3rver, file spool)",
  () => freshStore({ spoolMemoryLimit: 0 }),
  s3rverLimits,
);

describe("S3BlobStore (s3 specifics)", () => {
  it("stores objects under the prefix", async () => {
    const store = await freshStore();
    await store.put("runs/1/out.json", '{"n":1}', { contentType: "application/json" });
    const out = await raw.send(new GetObjectCommand({ Bucket: BUCKET, Key: "tm/runs/1/out.json" }));
    expect(await out.Body?.transformToString()).toBe('{"n":1}');
    expect(out.ContentType).toBe("application/json");
    expect(store.objectKey("runs/1/out.json")).toBe("tm/runs/1/out.json");
  });

  it("lists only objects under the prefix, with the prefix stripped", async () => {
    const store = await freshStore();
    await rawPut("outside/x", "no");
    await rawPut("tmx/y", "no"); // shares the characters "tm" but not the folder "tm/"
    await rawPut("tm/inside/z", "yes");
    const keys: string[] = [];
    for await (const info of store.list()) keys.push(info.key);
    expect(keys).toEqual(["inside/z"]);
  });

  it("skips objects under the prefix whose names are not valid keys", async () => {
    const store = await freshStore();
    await rawPut("tm/folder/", ""); // a console-style "folder" marker
    await rawPut("tm/back\\slash", "x"); // fine for S3, refused by validateBlobKey
    // (s3rver cannot store `a//b`-style keys at all, so that case is not tested here.)
    await rawPut("tm/ok", "x");
    const keys: string[] = [];
    for await (const info of store.list()) keys.push(info.key);
    expect(keys).toEqual(["ok"]);
  });

  it("normalises the configured prefix to a folder", async () => {
    expect((await freshStore({ prefix: "tm" })).prefix).toBe("tm/");
    expect((await freshStore({ prefix: "/tm/" })).prefix).toBe("tm/");
    expect((await freshStore({ prefix: "" })).prefix).toBe("");
    expect(() => new S3BlobStore({ bucket: BUCKET, prefix: "../up" })).toThrow();
  });

  it("works without a prefix", async () => {
    const store = await freshStore({ prefix: "" });
    await store.put("root-level", "x");
    const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: "root-level" }));
    expect(head.ContentLength).toBe(1);
  });

  it("returns the same quoted ETag form as S3 reports", async () => {
    const store = await freshStore();
    const info = await store.put("e/tag", "hello");
    const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: "tm/e/tag" }));
    expect(info.etag).toBe('"5d41402abc4b2a76b9719d911017c592"');
    expect(head.ETag?.replace(/"/g, "")).toBe("5d41402abc4b2a76b9719d911017c592");
  });

  it("removes spooled temp files after upload and after a failed source", async () => {
    const store = await freshStore({ spoolMemoryLimit: 0 });
    await store.put("sp/ok", Readable.from([Buffer.alloc(1000, 1)]));
    const failing = new Readable({
      read() {
        this.destroy(new Error("gone"));
      },
    });
    await expect(store.put("sp/bad", failing)).rejects.toThrow("gone");
    expect(await readdir(spoolDir)).toEqual([]);
    expect(await store.exists("sp/bad")).toBe(false);
  });

  it("does not mistake a missing bucket for a missing object", async () => {
    const store = await freshStore({ bucket: "no-such-bucket" });
    const err = await store.get("k").catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(BlobNotFoundError);
    expect((err as Error).name).toBe("NoSuchBucket");
    expect((err as Error).message).toMatch(/^S3 blob store s3:\/\/no-such-bucket\/tm\/ at http/);
  });

  it("names the store when it cannot be reached, never its credentials", async () => {
    const store = await freshStore({
      endpoint: "http://127.0.0.1:1",
      secretAccessKey: "secret-never-shown",
    });
    for (const call of [() => store.get("k"), () => store.put("k", "v")]) {
      const err = await call().catch((e: unknown) => e);
      expect((err as Error).message).toMatch(
        /^S3 blob store s3:\/\/tidemark-test\/tm\/ at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
      );
      expect(String((err as Error).message)).not.toContain("secret-never-shown");
    }
  });

  it("requires both credentials or neither", () => {
    expect(() => new S3BlobStore({ bucket: BUCKET, accessKeyId: "only-id" })).toThrow(/both/);
  });
});

async function rawPut(key: string, body: string): Promise<void> {
  await raw.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
}

describe("S3BlobStore in a process of its own", () => {
  it("prints nothing on stderr: no SDK Node-version warning breaks a command's output", async () => {
    const { execFile } = await import("node:child_process");
    const store = new URL("./s3-blob-store.ts", import.meta.url).pathname;
    const script = `import { S3BlobStore } from ${JSON.stringify(store)};
      const s = new S3BlobStore({ bucket: ${JSON.stringify(BUCKET)}, region: "us-east-1",
        endpoint: ${JSON.stringify(endpoint)}, forcePathStyle: true,
        accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
      await s.put("warning-probe.txt", "x");
      s.destroy();`;
    const env = { ...process.env };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const out = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        { env },
        (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
      );
    });
    expect(out).toEqual({ code: 0, stderr: "" });
  });
});
