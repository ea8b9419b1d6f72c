// Killed runs in S3-pointer mode (`storage: s3`): whatever a SIGKILL leaves — the run's local
// work dir, an upload caught midway, a move caught between its copy and its delete — is listed
// with its size by `gc --dry-run` and removed by the next run's recovery, and no input is
// archived twice. On the in-process s3rver and on the fs blob driver (where a killed put leaves
// a hidden `.<name>.<hex>.tmp`).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BlobStore } from "tidemark/kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CrashStage } from "../../src/pipelines/snapshots/stages/ingest/crash-hook.ts";
import { ObjectSnapshotStorage } from "../../src/pipelines/snapshots/stages/publish/storage/object-storage.ts";
import { FsBlobStore } from "../../src/testing/blob-stores.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { type RunningS3rver, startS3rver } from "../../src/testing/s3rver.ts";
import { type CliFixture, cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

const ROOT = "etl_data/raw_v1";
const D1 = csv("A1,a,5,1.00", "A2,b,3,1.00");
const D2 = csv("A1,a,6,1.00", "A3,c,1,1.00");
const SHA2 = createHash("sha256").update(D2).digest("hex");
// From here on the killed run's state is current (the switch is the commit point).
const COMMITTED: ReadonlySet<CrashStage> = new Set(["after-switch", "mid-move", "after-move-copy"]);

let s3: RunningS3rver;
let opened = 0;

beforeAll(async () => {
  s3 = await startS3rver("tm-snap-kill");
});

afterAll(() => s3?.close());

type Driver = "s3rver" | "fs blob driver";

/** A CLI fixture in S3-pointer mode on the driver, and the test's own view of its tree. */
async function s3Fixture(h: Parameters<typeof cliFixture>[0], driver: Driver) {
  const f = await cliFixture(h);
  const workDir = path.join(f.dataDir, "scratch");
  const snapshots = `  snapshots:\n    storage: s3\n    work_dir: ${workDir}\n    workers: 0\n    fsync: false\n`;
  let blobs: BlobStore;
  if (driver === "s3rver") {
    const prefix = `k${++opened}-${Date.now()}/`;
    blobs = s3.store(prefix);
    writeFileSync(
      path.join(f.cwd, "tidemark.yaml"),
      [
        "blobs:",
        "  driver: s3",
        "  s3:",
        `    bucket: ${s3.bucket}`,
        `    prefix: ${prefix}`,
        `    endpoint: ${s3.endpoint}`,
        "    force_path_style: true",
        "    access_key_id: S3RVER",
        "    secret_access_key: S3RVER",
        `pipelines:\n${snapshots}`,
      ].join("\n"),
    );
  } else {
    blobs = new FsBlobStore(path.join(f.dataDir, "blobs"));
    writeFileSync(path.join(f.cwd, "tidemark.yaml"), `pipelines:\n${snapshots}`);
  }
  const storage = new ObjectSnapshotStorage(blobs, ROOT, workDir);
  return { f, blobs, storage, workDir };
}

const runJson = async (f: CliFixture) => {
  const out = await f.run(["snapshots", "run", "acme", "--json"]);
  expect(out.code, out.stderr).toBeLessThan(2);
  return JSON.parse(out.stdout);
};

const gcDryRun = async (f: CliFixture) => {
  const out = await f.run(["snapshots", "gc", "--dry-run", "--json"]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as {
    deleted: Array<{ kind: string; key: string; bytes: number; size: string; why: string }>;
  };
};

/** Every object key under the prefix, and (fs driver) every file on disk, temp files included. */
async function everyName(blobs: BlobStore, dataDir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const info of blobs.list()) names.push(info.key);
  const disk = path.join(dataDir, "blobs");
  if (existsSync(disk)) {
    for (const n of readdirSync(disk, { recursive: true })) names.push(String(n));
  }
  return names;
}

const CASES: Array<[Driver, CrashStage]> = [
  ...(
    [
      "mid-parse",
      "mid-upload",
      "state-written",
      "after-switch",
      "mid-move",
      "after-move-copy",
    ] as const
  ).map((s): [Driver, CrashStage] => ["s3rver", s]),
  ...(["mid-upload", "mid-move", "after-move-copy"] as const).map((s): [Driver, CrashStage] => [
    "fs blob driver",
    s,
  ]),
];

describeEachDialect("snapshots storage: s3 — killed runs leave nothing behind", (h) => {
  it.each(CASES)(
    "%s, SIGKILL at %s: gc --dry-run lists the leftovers with sizes; the next run removes them, archives once",
    async (driver, stage) => {
      const { f, blobs, storage, workDir } = await s3Fixture(h, driver);
      f.config("acme");
      await storage.writeText("inbox/acme/d1.csv", D1);
      const first = await runJson(f);
      expect(first.result.status).toBe("PASS");

      await storage.writeText("inbox/acme/d2.csv", D2);
      const killed = await f.spawn(["snapshots", "run", "acme"], {
        TIDEMARK_SNAPSHOTS_CRASH_AT: stage,
      });
      expect(killed.code, killed.stderr).not.toBe(0);
      const [deadRun] = readdirSync(workDir);
      expect(deadRun, "the killed run's work dir").toMatch(/^acme_\d{8}T\d{6}Z_[0-9a-f]{6}$/);
      const partials = (await everyName(blobs, f.dataDir)).filter((n) => n.endsWith(".tmp"));
      // Only the fs blob driver writes through a temp file; an S3 PUT is all or nothing.
      if (driver === "fs blob driver" && stage !== "after-move-copy") {
        expect(partials).toHaveLength(1);
      } else expect(partials).toEqual([]);

      // gc lists what the dead run left, with sizes, and deletes nothing on a dry run.
      const dry = await gcDryRun(f);
      const workItem = dry.deleted.find((i) => i.kind === "workdir");
      expect(workItem).toMatchObject({ key: path.join(workDir, deadRun!) });
      expect(workItem!.bytes).toBeGreaterThan(0);
      expect(workItem!.size).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
      const partialItems = dry.deleted.filter((i) => i.kind === "partial");
      expect(partialItems).toHaveLength(partials.length);
      for (const p of partialItems) {
        expect(p.key).toMatch(/\/\.[^/]+\.[0-9a-f]{16}\.tmp$/);
        expect(p.bytes).toBeGreaterThanOrEqual(0);
      }
      expect(readdirSync(workDir)).toEqual([deadRun]);

      // The next run recovers: the leftovers go, and are reported with their sizes.
      const next = await runJson(f);
      expect(next.kind).toBe("result");
      const removed = next.result.recovery.removedLeftovers as Array<Record<string, unknown>>;
      expect(removed).toContainEqual(
        expect.objectContaining({ kind: "workdir", run_id: deadRun, bytes: workItem!.bytes }),
      );
      expect(removed.filter((l) => l.kind === "partial")).toHaveLength(partials.length);
      if (COMMITTED.has(stage)) {
        expect(next.result.status).toBe("NO_INPUT");
        expect(next.result.recovery.repaired).toContain("input archived");
      } else {
        expect(next.result).toMatchObject({ status: "PASS", input_filename: "d2.csv" });
      }
      expect(existsSync(workDir) ? readdirSync(workDir) : []).toEqual([]);
      const names = await everyName(blobs, f.dataDir);
      expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
      // Archived once: no d2.csv.1, nothing left in the inbox.
      expect((await storage.listFiles("archive/acme/accepted")).map((e) => e.name).sort()).toEqual([
        "d1.csv",
        "d2.csv",
      ]);
      expect(await storage.listFiles("inbox/acme")).toEqual([]);
      expect((await storage.readCurrent("acme"))?.input_sha256).toBe(SHA2);

      // Nothing is left for gc either.
      const after = await gcDryRun(f);
      expect(after.deleted.filter((i) => i.kind === "workdir" || i.kind === "partial")).toEqual([]);
    },
    120_000,
  );
});
