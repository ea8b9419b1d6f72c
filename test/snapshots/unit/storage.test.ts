import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/fs-storage.ts";
import { ObjectSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/object-storage.ts";
import type {
  SnapshotStorage,
  StatePointer,
  StatePublication,
} from "../../../src/pipelines/snapshots/stages/publish/storage/snapshot-storage.ts";
import { FsBlobStore, S3BlobStore } from "../../../src/testing/blob-stores.ts";

const BUCKET = "tm-snapshots";
let server: S3rver;
let endpoint: string;
const cleanup: string[] = [];
const stores: S3BlobStore[] = [];

const tmp = (p: string) => {
  const d = mkdtempSync(path.join(tmpdir(), p));
  cleanup.push(d);
  return d;
};

beforeAll(async () => {
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: tmp("tm-s3rver-"),
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const s of stores) s.destroy();
  await server?.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

/** A local folder shaped like a state: facts, keys/, publication.json. */
/** The publication.json of a one-fact state of acme. */
function publication(runId: string): StatePublication {
  return {
    run_id: runId,
    supplier: "acme",
    input_filename: "f.csv",
    input_sha256: "ab".repeat(32),
    fact_count: 1,
    multi_category: false,
    key_buckets: 16,
    created_at: "2026-01-01T00:00:00.000Z",
  };
}

function localState(runId: string, facts: string): string {
  const dir = path.join(tmp("tm-state-"), ".state");
  mkdirSync(path.join(dir, "keys"), { recursive: true });
  writeFileSync(path.join(dir, "facts.ndjson"), facts);
  writeFileSync(path.join(dir, "keys", "0000.tsv"), "");
  writeFileSync(path.join(dir, "publication.json"), JSON.stringify(publication(runId)));
  return dir;
}

function pointer(runId: string, at: string): StatePointer {
  return {
    ...publication(runId),
    published_at: at,
    state_path: `state_store/acme/${runId}`,
  };
}

// s3rver writes a PUT straight into the object file, so a GET racing a PUT of the same key can
// fail there; real S3 replaces objects atomically. The race is only exercised on fs.
const backends: Array<[string, () => Promise<SnapshotStorage>, { racyReads: boolean }]> = [
  ["fs (symlink swap)", async () => new FsSnapshotStorage(tmp("tm-root-")), { racyReads: true }],
  [
    "s3 (pointer object, s3rver)",
    async () => {
      const blobs = new S3BlobStore({
        bucket: BUCKET,
        prefix: `t${stores.length}/`,
        region: "us-east-1",
        endpoint,
        forcePathStyle: true,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      });
      stores.push(blobs);
      return new ObjectSnapshotStorage(blobs, "etl_data/raw_v1", tmp("tm-scratch-"));
    },
    { racyReads: false },
  ],
];

for (const [name, open, limits] of backends) {
  describe(`snapshot storage: ${name}`, () => {
    it("a state is written once and never overwritten", async () => {
      const s = await open();
      await s.createState(
        "acme",
        "acme_20260101T000000Z_aaaaaa",
        localState("acme_20260101T000000Z_aaaaaa", "one\n"),
      );
      await expect(
        s.createState(
          "acme",
          "acme_20260101T000000Z_aaaaaa",
          localState("acme_20260101T000000Z_aaaaaa", "two\n"),
        ),
      ).rejects.toThrow(/already exists; states are immutable/);
      expect(await s.readText("state_store/acme/acme_20260101T000000Z_aaaaaa/facts.ndjson")).toBe(
        "one\n",
      );
    });

    it("current switches atomically between states and reads back with its publication time", async () => {
      const s = await open();
      expect(await s.readCurrent("acme")).toBeUndefined();
      const a = "acme_20260101T000000Z_aaaaaa";
      const b = "acme_20260102T000000Z_bbbbbb";
      await s.createState("acme", a, localState(a, "a\n"));
      await s.createState("acme", b, localState(b, "b\n"));
      await s.switchCurrent("acme", pointer(a, "2026-01-01T00:00:01.000Z"));
      expect(await s.readCurrent("acme")).toMatchObject({
        run_id: a,
        published_at: "2026-01-01T00:00:01.000Z",
        state_path: `state_store/acme/${a}`,
      });
      // Readers racing the switches always see one whole state, never a missing pointer.
      let switching = true;
      const reads: Array<string | undefined> = [];
      const reader = (async () => {
        while (switching && limits.racyReads) reads.push((await s.readCurrent("acme"))?.run_id);
      })();
      for (let i = 0; i < 10; i++) {
        await s.switchCurrent("acme", pointer(i % 2 ? a : b, `2026-01-02T00:00:0${i}.000Z`));
        reads.push((await s.readCurrent("acme"))?.run_id);
      }
      switching = false;
      await reader;
      expect(reads.length).toBeGreaterThanOrEqual(10);
      expect(reads.every((r) => r === a || r === b)).toBe(true);
      expect(await s.listCurrent()).toEqual(["acme"]);
    });

    it("moves keep the name and never overwrite (a .N suffix on collision)", async () => {
      const s = await open();
      await s.writeText("inbox/acme/f.csv", "1");
      expect(await s.move("inbox/acme/f.csv", "quarantine/acme/broken")).toBe(
        "quarantine/acme/broken/f.csv",
      );
      await s.writeText("inbox/acme/f.csv", "2");
      expect(await s.move("inbox/acme/f.csv", "quarantine/acme/broken")).toBe(
        "quarantine/acme/broken/f.csv.1",
      );
      expect(await s.readText("quarantine/acme/broken/f.csv")).toBe("1");
      expect((await s.listFiles("inbox/acme")).length).toBe(0);
    });

    it("lists files and folders, and removes a whole (read-only) state", async () => {
      const s = await open();
      const a = "acme_20260101T000000Z_aaaaaa";
      await s.createState("acme", a, localState(a, "a\n"));
      await s.writeText("inbox/acme/x.csv", "x");
      expect((await s.listFiles("inbox/acme")).map((e) => [e.name, e.size])).toEqual([
        ["x.csv", 1],
      ]);
      expect(await s.listDirs("state_store/acme")).toEqual([a]);
      const walked: string[] = [];
      for await (const e of s.walkFiles(`state_store/acme/${a}`)) walked.push(e.name);
      expect(walked.sort()).toEqual(["0000.tsv", "facts.ndjson", "publication.json"]);
      await s.removeDir(`state_store/acme/${a}`);
      expect(await s.listDirs("state_store/acme")).toEqual([]);
    });
  });
}

describe("fs snapshot storage specifics", () => {
  it("state files are read-only, current is a relative symlink dated at the switch", async () => {
    const root = tmp("tm-root-");
    const s = new FsSnapshotStorage(root);
    const a = "acme_20260101T000000Z_aaaaaa";
    await s.createState("acme", a, localState(a, "a\n"));
    await s.switchCurrent("acme", pointer(a, "2026-01-01T10:00:00.000Z"));
    const dir = path.join(root, "state_store", "acme", a);
    expect(statSync(path.join(dir, "facts.ndjson")).mode & 0o777).toBe(0o444);
    expect(statSync(dir).mode & 0o777).toBe(0o555);
    const link = path.join(root, "state", "current", "acme");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(`../../state_store/acme/${a}`);
    expect(lstatSync(link).mtime.toISOString()).toBe("2026-01-01T10:00:00.000Z");
  });

  it("sealing a state with many key buckets leaves every file read-only and intact", async () => {
    const root = tmp("tm-root-");
    const s = new FsSnapshotStorage(root);
    const a = "acme_20260101T000000Z_bbbbbb";
    const local = localState(a, "a\n");
    // More files than are synced at once.
    for (let b = 0; b < 37; b++) {
      writeFileSync(path.join(local, "keys", `${String(b).padStart(4, "0")}.tsv`), `k${b}\n`);
    }
    await s.createState("acme", a, local);
    const keys = path.join(root, "state_store", "acme", a, "keys");
    const files = readdirSync(keys).sort();
    expect(files.length).toBe(37);
    for (const [b, f] of files.entries()) {
      expect(statSync(path.join(keys, f)).mode & 0o777).toBe(0o444);
      expect(readFileSync(path.join(keys, f), "utf8")).toBe(`k${b}\n`);
    }
    expect(statSync(keys).mode & 0o777).toBe(0o555);
  });

  it("keys cannot escape the root", () => {
    const s = new FsSnapshotStorage(tmp("tm-root-"));
    expect(() => s.pathOf("../outside")).toThrow(/outside the snapshots root/);
  });
});

describe("object snapshot storage specifics", () => {
  const objectBackends: Array<[string, () => { s: ObjectSnapshotStorage; disk?: string }]> = [
    [
      "s3rver",
      () => {
        const blobs = new S3BlobStore({
          bucket: BUCKET,
          prefix: `o${stores.length}/`,
          region: "us-east-1",
          endpoint,
          forcePathStyle: true,
          accessKeyId: "S3RVER",
          secretAccessKey: "S3RVER",
        });
        stores.push(blobs);
        return { s: new ObjectSnapshotStorage(blobs, "etl_data/raw_v1", tmp("tm-scratch-")) };
      },
    ],
    [
      "fs blob driver",
      () => {
        const disk = tmp("tm-blobs-");
        const s = new ObjectSnapshotStorage(new FsBlobStore(disk), "etl_data/raw_v1", tmp("tm-s-"));
        return { s, disk };
      },
    ],
  ];

  for (const [name, open] of objectBackends) {
    it(`${name}: a move redone after a kill between its copy and its delete archives once`, async () => {
      const { s } = open();
      // What the killed move left: the copy in place, the source still in the inbox.
      await s.writeText("archive/acme/accepted/f.csv", "same bytes");
      await s.writeText("inbox/acme/f.csv", "same bytes");
      expect(await s.move("inbox/acme/f.csv", "archive/acme/accepted")).toBe(
        "archive/acme/accepted/f.csv",
      );
      expect(await s.listFiles("inbox/acme")).toEqual([]);
      expect((await s.listFiles("archive/acme/accepted")).map((e) => e.name)).toEqual(["f.csv"]);
      // Other bytes of the same size are another file: kept, under a new name.
      await s.writeText("inbox/acme/f.csv", "SAME BYTES");
      expect(await s.move("inbox/acme/f.csv", "archive/acme/accepted")).toBe(
        "archive/acme/accepted/f.csv.1",
      );
      await expect(s.move("inbox/acme/gone.csv", "archive/acme/accepted")).rejects.toThrow(
        /not found: inbox\/acme\/gone.csv/,
      );
    });
  }

  it("fs blob driver: finds the temp files of killed puts, and deletes nothing else", async () => {
    const { s, disk } = objectBackends[1]![1]();
    await s.writeText("runs/r1/stats.json", "{}");
    const dir = path.join(disk!, "etl_data", "raw_v1", "runs", "r1");
    writeFileSync(path.join(dir, ".facts.ndjson.0123456789abcdef.tmp"), "half");
    mkdirSync(path.join(dir, "diag"));
    writeFileSync(path.join(dir, "diag", ".x.fedcba9876543210.tmp"), "x");
    const found: Array<[string, number]> = [];
    for await (const e of s.walkPartialWrites("runs")) found.push([e.key, e.size]);
    expect(found.sort()).toEqual([
      ["runs/r1/.facts.ndjson.0123456789abcdef.tmp", 4],
      ["runs/r1/diag/.x.fedcba9876543210.tmp", 1],
    ]);
    const shallow: string[] = [];
    for await (const e of s.walkPartialWrites("runs", (k) => k !== "runs/r1/diag")) {
      shallow.push(e.key);
    }
    expect(shallow).toEqual(["runs/r1/.facts.ndjson.0123456789abcdef.tmp"]);
    // Only ever a temp file, whatever key it is handed.
    await s.removePartialWrite("runs/r1/stats.json");
    expect(await s.readText("runs/r1/stats.json")).toBe("{}");
    await s.removePartialWrite("runs/r1/diag/.x.fedcba9876543210.tmp");
    expect(existsSync(path.join(dir, "diag"))).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it("s3rver: a PUT is atomic, so there is nothing partial to find", async () => {
    const { s } = objectBackends[0]![1]();
    await s.writeText("runs/r1/stats.json", "{}");
    const found: string[] = [];
    for await (const e of s.walkPartialWrites("runs")) found.push(e.key);
    expect(found).toEqual([]);
  });
});
