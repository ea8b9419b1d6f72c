// Which leftovers recovery and gc may remove in S3-pointer mode: only those of this supplier's
// dead runs known to this database — never a live run's (lease held), another supplier's,
// another installation's sharing the scratch folder, or a supplier's upload still in the inbox.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { HistoryRepo } from "../../src/pipelines/snapshots/repos/history-repo.ts";
import { runGc } from "../../src/pipelines/snapshots/stages/gc/run-gc.ts";
import { FsBlobStore } from "../../src/testing/blob-stores.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { csv, snapshotHarness } from "./support/harness.ts";

const DEAD = "acme_20260101T000000Z_dead01";
const FOREIGN = "acme_20260101T000000Z_f0f0f0";
const OTHER = "brinex_20260101T000000Z_b0b0b0";
const HEX = "0123456789abcdef";

function file(p: string, bytes: number): string {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, Buffer.alloc(bytes, 1));
  return p;
}

describeEachDialect("snapshots storage: s3 — leftovers of dead runs only", (h) => {
  it("recovery and gc remove this supplier's dead work dirs and unfinished uploads, nothing else", async () => {
    const blobRoot = testTempDir("tm-blobs-");
    const t = await snapshotHarness(h, { blobs: new FsBlobStore(blobRoot) });
    t.config("acme");
    const history = new HistoryRepo(t.rt.db);
    const started = t.clock.now().toISOString();
    for (const [run_id, supplier] of [
      [DEAD, "acme"],
      [OTHER, "brinex"],
    ] as const) {
      await history.tryStart({ run_id, supplier, engine_run_id: null, started_at: started });
    }
    const scratch = t.settings.workDir;
    const dead = file(path.join(scratch, DEAD, "facts.ndjson"), 3000);
    file(path.join(scratch, DEAD, "keys", "0000.tsv"), 96);
    // A run of the same supplier name that this database never saw: another installation's.
    const foreign = file(path.join(scratch, FOREIGN, "facts.ndjson"), 10);
    const other = file(path.join(scratch, OTHER, "facts.ndjson"), 10);
    const tree = path.join(blobRoot, "etl_data", "raw_v1");
    const archived = file(path.join(tree, `archive/acme/accepted/.d0.csv.${HEX}.tmp`), 700);
    const inState = file(path.join(tree, `state_store/acme/${DEAD}/.facts.ndjson.${HEX}.tmp`), 5);
    const inbox = file(path.join(tree, `inbox/acme/.upload.csv.${HEX}.tmp`), 9);
    const otherPointer = file(path.join(tree, `state/current/.brinex.json.${HEX}.tmp`), 9);

    // A run holds the supplier: gc leaves it alone.
    await t.rt.leases.tryAcquire("snapshots:acme", "someone", 60_000);
    const locked = await runGc(t.services, { dryRun: false, supplier: "acme" });
    expect(locked.skipped).toEqual([
      { supplier: "acme", reason: "locked", why: "locked: a run of this supplier is in progress" },
    ]);
    expect(existsSync(dead) && existsSync(archived)).toBe(true);
    await t.rt.leases.release("snapshots:acme", "someone");

    const dry = await runGc(t.services, { dryRun: true, supplier: "acme" });
    const listed = dry.deleted.filter((i) => i.kind === "workdir" || i.kind === "partial");
    expect(listed.map((i) => [i.kind, i.key, i.bytes, i.size]).sort()).toEqual(
      [
        ["partial", `archive/acme/accepted/.d0.csv.${HEX}.tmp`, 700, "700 B"],
        ["partial", `state_store/acme/${DEAD}/.facts.ndjson.${HEX}.tmp`, 5, "5 B"],
        ["workdir", path.join(scratch, DEAD), 3096, "3.0 KiB"],
      ].sort(),
    );
    expect(dry.deletedBytes).toBe(3801);
    expect(existsSync(dead) && existsSync(archived) && existsSync(inState)).toBe(true);

    await t.put("acme", "d1.csv", csv("A1,a,5,1.00"));
    t.clock.advance(60_000); // the object's mtime is the real time: let it settle

    const { result } = await t.ingest("acme");
    expect(result.status).toBe("PASS");
    expect(result.recovery.interrupted).toEqual([DEAD]);
    expect(result.recovery.removedLeftovers.map((l) => [l.kind, l.run_id, l.bytes]).sort()).toEqual(
      [
        ["partial", null, 700],
        ["partial", DEAD, 5],
        ["workdir", DEAD, 3096],
      ].sort(),
    );
    expect(existsSync(path.join(scratch, DEAD))).toBe(false);
    expect(existsSync(archived) || existsSync(inState)).toBe(false);
    // No empty folder is left where the unfinished upload was.
    expect(existsSync(path.join(tree, "state_store", "acme", DEAD))).toBe(false);
    for (const kept of [foreign, other, inbox, otherPointer]) expect(existsSync(kept)).toBe(true);
    expect(existsSync(path.join(scratch, result.run_id))).toBe(false);
  });

  it("gc: a scratch folder of no known supplier goes once a day old, unless its lease is held", async () => {
    const t = await snapshotHarness(h, { blobs: new FsBlobStore(testTempDir("tm-blobs-")) });
    const scratch = t.settings.workDir;
    const old = new Date(t.clock.now().getTime() - 2 * 86_400_000);
    const aged = (name: string) => {
      file(path.join(scratch, name, "facts.ndjson"), 100);
      utimesSync(path.join(scratch, name), old, old);
      return path.join(scratch, name);
    };
    const junk = aged("leftover-of-something");
    const held = aged("zed_20260101T000000Z_aaaaaa");
    const free = aged("zorg_20260101T000000Z_bbbbbb");
    file(path.join(scratch, "fresh", "x"), 1);
    await t.rt.leases.tryAcquire("snapshots:zed", "a-live-run", 60_000);
    const report = await runGc(t.services, { dryRun: false });
    expect(report.deleted.map((i) => [i.supplier, i.kind, i.key, i.bytes]).sort()).toEqual(
      [
        ["*", "workdir", junk, 100],
        ["*", "workdir", free, 100],
      ].sort(),
    );
    expect(existsSync(junk) || existsSync(free)).toBe(false);
    expect(existsSync(held) && existsSync(path.join(scratch, "fresh"))).toBe(true);
  });
});
