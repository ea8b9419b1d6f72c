import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import {
  type BlobDriver,
  blobStoreFactory,
  openEtlHarness,
} from "../../testing/entity-etl/etl-harness.ts";
import { FakeCatalogue } from "../../testing/entity-etl/fake-catalogue.ts";
import { startS3rver } from "../../testing/s3rver.ts";
import { sha256Hex } from "../hashing/content-hash.ts";
import { RunRepo } from "../runs/run-repo.ts";
import { hashOfRawKey } from "./raw-key.ts";
import { RawStore } from "./raw-store.ts";

let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
beforeAll(async () => {
  s3 = await startS3rver("tidemark-etl-test");
});
afterAll(async () => {
  await s3?.close();
});

const MINUTE = 60_000;

describeEachDialect("runEntityEtl", (h) => {
  for (const driver of ["fs", "s3"] as BlobDriver[]) {
    describe(`raw store on ${driver}`, () => {
      const blobsOf = blobStoreFactory(driver, () => s3!);
      const open = (opts: Parameters<typeof openEtlHarness>[2] = {}) =>
        openEtlHarness(h, blobsOf, opts);

      it("first run: puts each document, fills the ledger, applies and marks every target", async () => {
        const t = await open();
        const r = await t.pull();
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({
          source: "fake",
          entity: "item",
          apply_version: 1,
          dry_run: false,
          total_targets: 5,
          success_count: 5,
          failure_count: 0,
          failure_rate: 0,
          changed: 5,
          unchanged_skipped: 0,
          reapplied: 0,
          blob_puts: 5,
          ledger_upserts: 5,
          applied: 5,
          failures: [],
          failures_omitted: 0,
        });
        expect(r.summary).not.toHaveProperty("would_put");
        expect(t.blobs.rawPuts).toHaveLength(5);
        const rows = await t.ledger();
        expect(rows.map((row) => row.source_id)).toEqual(["a", "b", "c", "d", "e"]);
        for (const row of rows) {
          const head = await t.blobs.head(row.s3_key);
          expect(row).toMatchObject({
            source: "fake",
            entity: "item",
            etag: head?.etag,
            saved_at: head?.savedAt,
            applied_version: 1,
            applied_at: "2026-05-01T08:00:00.000Z",
          });
        }
        expect((await t.things()).map((x) => [x.id, x.title, x.apply_version])).toEqual([
          ["a", "Item a", 1],
          ["b", "Item b", 1],
          ["c", "Item c", 1],
          ["d", "Item d", 1],
          ["e", "Item e", 1],
        ]);
      });

      it("unchanged content, same apply version: no put, no apply, no ledger write", async () => {
        const t = await open();
        await t.pull();
        const before = await t.ledger();
        t.clock.advance(MINUTE);
        t.world.set("c", { tags: [2, 3, 1] }); // order carries no meaning: not a change
        const r = await t.pull();
        expect(r.summary).toMatchObject({
          total_targets: 5,
          unchanged_skipped: 5,
          changed: 0,
          reapplied: 0,
          blob_puts: 0,
          ledger_upserts: 0,
          applied: 0,
        });
        expect(t.blobs.rawPuts).toHaveLength(5);
        expect(t.world.applies).toHaveLength(5); // all from the first run
        expect(await t.ledger()).toEqual(before);
      });

      it("unchanged content, new apply version: applied again without a put", async () => {
        const t = await open();
        await t.pull();
        t.clock.advance(MINUTE);
        const r = await t.pull({ apply_version: 2 });
        expect(r.summary).toMatchObject({ reapplied: 5, changed: 0, blob_puts: 0, applied: 5 });
        expect(t.blobs.rawPuts).toHaveLength(5);
        expect(t.world.applies.slice(5).map((a) => a.reason)).toEqual(Array(5).fill("reapply"));
        for (const row of await t.ledger()) {
          expect(row).toMatchObject({ applied_version: 2, applied_at: "2026-05-01T08:01:00.000Z" });
        }
        expect((await t.things()).every((x) => x.apply_version === 2)).toBe(true);
      });

      it("changed content: put, ledger upsert resetting applied_*, apply, mark", async () => {
        const t = await open();
        await t.pull();
        const [oldB] = (await t.ledger()).filter((row) => row.source_id === "b");
        t.clock.advance(MINUTE);
        t.world.set("b", { price: 250 });
        const r = await t.pull();
        expect(r.summary).toMatchObject({
          changed: 1,
          unchanged_skipped: 4,
          blob_puts: 1,
          applied: 1,
        });
        const [b] = (await t.ledger()).filter((row) => row.source_id === "b");
        expect(b?.content_hash).not.toBe(oldB?.content_hash);
        expect(b).toMatchObject({
          created_at: oldB?.created_at,
          updated_at: "2026-05-01T08:01:00.000Z",
          applied_at: "2026-05-01T08:01:00.000Z",
          applied_version: 1,
        });
        expect((await t.things()).find((x) => x.id === "b")?.price).toBe(250);

        // The upsert resets applied_*: seen when the apply of new content fails.
        t.clock.advance(MINUTE);
        t.world.set("b", { price: 300 });
        t.world.failApply.add("b");
        const failed = await t.pull({ max_failure_rate: 0.5 });
        expect(failed.summary).toMatchObject({ failure_count: 1, ledger_upserts: 1, applied: 0 });
        const [pending] = (await t.ledger()).filter((row) => row.source_id === "b");
        expect(pending).toMatchObject({ applied_at: null, applied_version: null });
        expect((await t.things()).find((x) => x.id === "b")?.price).toBe(250);
        // Next run: same hash, not applied by this version → applied, without a put.
        t.world.failApply.clear();
        const puts = t.blobs.rawPuts.length;
        const again = await t.pull();
        expect(again.summary).toMatchObject({ reapplied: 1, changed: 0, blob_puts: 0 });
        expect(t.blobs.rawPuts).toHaveLength(puts);
        expect((await t.things()).find((x) => x.id === "b")?.price).toBe(300);
      });

      it("stores the normalized document as canonical JSON whose SHA-256 is its key's hash", async () => {
        const t = await open();
        await t.pull();
        for (const row of await t.ledger()) {
          expect(row.s3_key).toBe(
            `raw/source=fake/entity=item/source_id=${row.source_id}/hash=${row.content_hash}.json`,
          );
          const bytes = await t.blobs.get(row.s3_key);
          expect(sha256Hex(bytes)).toBe(row.content_hash);
          expect(hashOfRawKey(row.s3_key)).toBe(row.content_hash);
          expect(bytes.toString()).toBe(
            `{"id":"${row.source_id}","price":100,"tags":[1,2,3],"title":"Item ${row.source_id}"}`,
          );
        }
      });

      it("never overwrites a raw object: content that comes back points at the first save", async () => {
        const t = await open();
        await t.pull();
        const [first] = await t.ledger();
        const saved = await t.blobs.head(first!.s3_key);
        t.world.set("a", { price: 200 });
        await t.pull();
        t.world.set("a", { price: 100 });
        t.clock.advance(MINUTE);
        const puts = t.blobs.rawPuts.length;
        const r = await t.pull();
        expect(r.summary).toMatchObject({
          changed: 1,
          blob_puts: 0,
          blob_existing: 1,
          ledger_upserts: 1,
        });
        expect(t.blobs.rawPuts).toHaveLength(puts);
        expect(await t.blobs.head(first!.s3_key)).toEqual(saved);
        const [a] = await t.ledger();
        expect(a).toMatchObject({
          s3_key: first!.s3_key,
          saved_at: saved?.savedAt,
          etag: saved?.etag,
        });
        const versions = await new RawStore(t.blobs, "dev").versions({
          source: "fake",
          entity: "item",
          sourceId: "a",
        });
        expect(versions).toHaveLength(2);
      });

      it("dry run: fetches and compares, writes nothing, says what it would write", async () => {
        const t = await open();
        const r = await t.pull({}, { dryRun: true });
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({
          dry_run: true,
          total_targets: 5,
          changed: 5,
          would_put: 5,
          would_upsert: 5,
          would_apply: 5,
          blob_puts: 0,
          ledger_upserts: 0,
          applied: 0,
        });
        expect(t.world.fetched).toHaveLength(5);
        expect(await t.blobs.keys()).toEqual([]); // not even the env marker
        expect(await t.ledger()).toEqual([]);
        expect(await t.things()).toEqual([]);
        await t.pull();
        const before = {
          ledger: await t.ledger(),
          things: await t.things(),
          keys: await t.blobs.keys(),
        };
        t.world.set("b", { price: 1 });
        const dry = await t.pull({ apply_version: 2 }, { dryRun: true });
        expect(dry.summary).toMatchObject({
          changed: 1,
          reapplied: 4,
          would_put: 1,
          would_upsert: 1,
          would_apply: 5,
        });
        expect({
          ledger: await t.ledger(),
          things: await t.things(),
          keys: await t.blobs.keys(),
        }).toEqual(before);
        expect(t.world.applies).toHaveLength(5);
      });

      it("--limit caps the targets", async () => {
        const t = await open();
        const r = await t.pull({}, { limit: 2 });
        expect(r.summary).toMatchObject({ total_targets: 2, changed: 2 });
        expect(t.world.fetched).toEqual(["a", "b"]);
        expect((await t.ledger()).map((row) => row.source_id)).toEqual(["a", "b"]);
      });

      it("takes the first targets seen up to --limit, then works through them in key order", async () => {
        const world = new FakeCatalogue(["a", "b", "c", "d", "e"]);
        world.targets = ["d", "b", "e", "a", "c"];
        const t = await open({ world });
        const r = await t.pull({ batch_size: 2 }, { limit: 4 });
        expect(r.summary).toMatchObject({ total_targets: 4, changed: 4 });
        expect(t.world.fetched).toEqual(["a", "b", "d", "e"]);
        expect(t.world.applies.map((a) => a.target)).toEqual(["a", "b", "d", "e"]);
      });

      it("records fetch, normalize and apply failures per target and goes on", async () => {
        const world = new FakeCatalogue(["a", "b", "c", "d", "e", "f", "g", "h"]);
        world.targets = [...world.items.keys(), "gone", "bad/id"];
        world.failFetch.add("b");
        world.malformed.add("c");
        world.failApply.add("d");
        const t = await open({ world });
        const r = await t.pull({ max_failure_rate: 0.5 });
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({
          total_targets: 10,
          failure_count: 4,
          success_count: 6,
          failure_rate: 0.4,
          not_found: 1,
          changed: 5,
        });
        const failures = (
          r.summary.failures as Array<{ target: string; kind: string; message: string }>
        )
          .slice()
          .sort((x, y) => x.target.localeCompare(y.target));
        expect(failures).toEqual([
          { target: "b", kind: "fetch", message: "HTTP 503 from the fake source for b" },
          {
            target: "bad/id",
            kind: "target",
            message: "target id contains '/', '\\' or a control character",
          },
          { target: "c", kind: "normalize", message: "malformed payload: price of c" },
          { target: "d", kind: "apply", message: "apply refused d" },
        ]);
        // `runs show` shows what the run recorded.
        expect((await new RunRepo(t.rt.db).get(r.runId))?.summary?.failures).toEqual(
          r.summary.failures,
        );
        expect((await t.ledger()).map((row) => [row.source_id, row.applied_version])).toEqual([
          ["a", 1],
          ["d", null],
          ["e", 1],
          ["f", 1],
          ["g", 1],
          ["h", 1],
        ]);
        // d's apply wrote its row before failing: rolled back with it.
        expect((await t.things()).map((x) => x.id)).toEqual(["a", "e", "f", "g", "h"]);
        world.failFetch.clear();
        world.malformed.clear();
        world.failApply.clear();
        const next = await t.pull();
        expect(next.summary).toMatchObject({
          changed: 2,
          reapplied: 1,
          unchanged_skipped: 5,
          failure_count: 1,
        });
      });

      it("a failed blob put leaves that target's ledger and domain rows untouched", async () => {
        const t = await open();
        t.blobs.failPutWhen = (key) => key.includes("/source_id=b/");
        const r = await t.pull({ max_failure_rate: 0.5 });
        expect(r.summary).toMatchObject({ failure_count: 1, changed: 4, blob_puts: 4 });
        expect(r.summary.failures).toEqual([
          { target: "b", kind: "put", message: expect.stringContaining("injected put failure") },
        ]);
        expect((await t.ledger()).map((row) => row.source_id)).toEqual(["a", "c", "d", "e"]);
        expect((await t.things()).map((x) => x.id)).toEqual(["a", "c", "d", "e"]);
        // An existing target whose new content cannot be saved keeps its old rows exactly.
        t.blobs.failPutWhen = () => false;
        await t.pull();
        const before = { ledger: await t.ledger(), things: await t.things() };
        t.world.set("b", { price: 999 });
        t.blobs.failPutWhen = (key) => key.includes("/source_id=b/");
        t.clock.advance(MINUTE);
        const again = await t.pull({ max_failure_rate: 0.5 });
        expect(again.summary).toMatchObject({ failure_count: 1, ledger_upserts: 0, applied: 0 });
        expect({ ledger: await t.ledger(), things: await t.things() }).toEqual(before);
      });

      it("fails the run when the failure rate is above max_failure_rate, not at it", async () => {
        const ids = Array.from({ length: 20 }, (_, i) => `i${String(i).padStart(2, "0")}`);
        const world = new FakeCatalogue(ids);
        world.failFetch.add("i00");
        const t = await open({ world });
        const atMax = await t.pull({ batch_size: 7 });
        expect(atMax.status).toBe("succeeded");
        expect(atMax.summary).toMatchObject({ failure_rate: 0.05, failure_count: 1 });
        world.failFetch.add("i01");
        const above = await t.pull({ batch_size: 7 });
        expect(above.status).toBe("failed");
        expect(above.error).toBe(
          "fake item: 2 of 20 targets failed (10%), more than the allowed 5%",
        );
        expect(above.summary).toMatchObject({ failure_rate: 0.1, unchanged_skipped: 18 });
        expect(await t.ledger()).toHaveLength(19); // the successes were committed
      });

      it("reapply: applies pending rows from the raw store, with no fetch", async () => {
        const t = await open();
        await t.pull();
        t.world.set("c", { price: 5 });
        t.world.failApply.add("c");
        await t.pull({ max_failure_rate: 0.5 }); // c: new content, not applied
        t.world.failApply.clear();
        const fetched = t.world.fetched.length;
        const puts = t.blobs.rawPuts.length;
        const dry = await t.reapply({ apply_version: 2 }, { dryRun: true });
        expect(dry.summary).toMatchObject({
          dry_run: true,
          total_targets: 5,
          would_apply: 5,
          reapplied: 0,
        });
        expect((await t.ledger()).filter((row) => row.applied_version === 2)).toEqual([]);
        const r = await t.reapply({ apply_version: 2 });
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({ total_targets: 5, reapplied: 5, failure_count: 0 });
        expect(r.summary).not.toHaveProperty("would_apply");
        expect(t.world.fetched).toHaveLength(fetched);
        expect(t.blobs.rawPuts).toHaveLength(puts);
        expect((await t.things()).map((x) => [x.id, x.price, x.apply_version])).toEqual([
          ["a", 100, 2],
          ["b", 100, 2],
          ["c", 5, 2],
          ["d", 100, 2],
          ["e", 100, 2],
        ]);
        expect((await t.ledger()).every((row) => row.applied_version === 2)).toBe(true);
        expect((await t.reapply({ apply_version: 2 })).summary).toMatchObject({ total_targets: 0 });
        expect((await t.reapply({ apply_version: 3 }, { limit: 2 })).summary).toMatchObject({
          total_targets: 2,
          reapplied: 2,
        });
      });

      it("reapply: a raw object missing or not matching its hash is that row's failure", async () => {
        const t = await open();
        await t.pull();
        const [a, b] = await t.ledger();
        await t.blobs.inner.put(a!.s3_key, '{"tampered":true}');
        await t.blobs.inner.delete(b!.s3_key);
        const r = await t.reapply({ apply_version: 2, max_failure_rate: 0.5 });
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({ total_targets: 5, reapplied: 3, failure_count: 2 });
        const failures = (r.summary.failures as Array<{ target: string }>)
          .slice()
          .sort((x, y) => x.target.localeCompare(y.target));
        expect(failures).toEqual([
          {
            target: "a",
            kind: "raw",
            message: expect.stringMatching(/hashes to [0-9a-f]{64}, not its ledger hash/),
          },
          { target: "b", kind: "raw", message: expect.stringContaining("blob not found") },
        ]);
        expect((await t.ledger()).map((row) => row.applied_version)).toEqual([1, 1, 2, 2, 2]);
      });

      it("a dev run cannot write where prod writes", async () => {
        const prod = await open({ env: "prod" });
        expect((await prod.pull()).status).toBe("succeeded");
        const keys = await prod.blobs.keys();
        const dev = await open({ env: "dev", shareBlobs: prod.blobs.inner });
        for (const dryRun of [false, true]) {
          const r = await dev.pull({}, { dryRun });
          expect(r.status).toBe("failed");
          expect(r.error).toMatch(
            /^raw store \S+ belongs to env "prod" \(raw\/_env\.json\), this run's env is "dev"/,
          );
        }
        expect(dev.world.fetched).toEqual([]);
        expect(dev.blobs.rawPuts).toEqual([]);
        expect(await dev.ledger()).toEqual([]);
        expect(await prod.blobs.keys()).toEqual(keys);
        // dev has its own location and works there.
        expect((await (await open({ env: "dev" })).pull()).status).toBe("succeeded");
      });
    });
  }

  describe("fs raw store, engine behaviour", () => {
    const blobsOf = blobStoreFactory("fs", () => s3!);

    it("a database error fails the run; the rerun completes", async () => {
      const t = await open();
      await t.pull();
      await t.db.schema.dropTable("etl.staging").execute();
      t.world.set("b", { price: 7 });
      const r = await t.pull();
      expect(r.status).toBe("failed");
      expect(r.error).toMatch(/staging/);
      expect((await t.things()).find((x) => x.id === "b")?.price).toBe(100);
      const { createLedgerTable } = await import("./ledger-table.ts");
      await createLedgerTable(t.rt.db.kysely, "etl.staging");
      const again = await t.pull();
      expect(again.status).toBe("succeeded");
      expect(again.summary).toMatchObject({
        changed: 5,
        blob_puts: 1,
        blob_existing: 4,
        applied: 5,
      });
      expect((await t.things()).find((x) => x.id === "b")?.price).toBe(7);

      function open() {
        return openEtlHarness(h, blobsOf);
      }
    });

    it("the ledger lost while batches are being fetched fails the run, writing nothing", async () => {
      const t = await openEtlHarness(h, blobsOf);
      await t.pull();
      t.world.set("b", { price: 7 });
      let release!: () => void;
      t.world.gate = new Promise<void>((r) => {
        release = r;
      });
      const atGate = new Promise<void>((r) => {
        t.world.atGate = r;
      });
      const running = t.pull({ batch_size: 2 });
      await atGate;
      await t.db.schema.dropTable("etl.staging").execute();
      release();
      const r = await running;
      expect(r.status).toBe("failed");
      expect(r.error).toMatch(/staging/);
      expect((await t.things()).find((x) => x.id === "b")?.price).toBe(100);
      const { createLedgerTable } = await import("./ledger-table.ts");
      await createLedgerTable(t.rt.db.kysely, "etl.staging");
      t.world.gate = undefined;
      expect((await t.pull({ batch_size: 2 })).status).toBe("succeeded");
      expect((await t.things()).find((x) => x.id === "b")?.price).toBe(7);
    });

    it("a run whose lease was taken over writes nothing to the ledger or domain tables", async () => {
      const t = await openEtlHarness(h, blobsOf);
      let release!: () => void;
      t.world.gate = new Promise<void>((r) => {
        release = r;
      });
      const atGate = new Promise<void>((r) => {
        t.world.atGate = r;
      });
      const running = t.pull({}, { leaseTtlMs: 60_000 });
      await atGate;
      t.clock.advance(61_000);
      expect((await t.rt.leases.tryAcquire("job:pull", "run-b", 60_000))?.holder).toBe("run-b");
      release();
      const report = await running;
      expect(report.status).toBe("abandoned");
      expect(await t.ledger()).toEqual([]);
      expect(await t.things()).toEqual([]);
    });

    it("reports progress: targets done out of the total", async () => {
      const t = await openEtlHarness(h, blobsOf);
      await t.pull({ batch_size: 3 });
      expect(t.world.progressTotal).toBe(5);
      expect(t.world.progressTicks).toEqual([3, 2]);
    });
  });
});
