import { lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { expect, it } from "vitest";
import { contentHash } from "../../src/engine/hashing/index.ts";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { SNAPSHOT_RUN_ID } from "../../src/pipelines/snapshots/stages/ingest/run-id.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

const lines = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describeEachDialect("snapshots publication", (h) => {
  it("a PASS writes the run artifacts with the documented fields and publishes an immutable state", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG.replace("max_bad_ratio: 0.10", "max_bad_ratio: 0.5"));
    await t.put(
      "acme",
      "stock.csv",
      csv('A1,"Молоток, 500 г",5,100.00', "A2,,3,12.5", "A3,Ключ,x,1"),
    );
    const { report, result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", good_rows: 2, bad_rows: 1 });
    const runId = result.run_id;
    // run_id `<supplier>_<ts>_<rand6>`; the engine run is recorded too, under the supplier's lease key.
    expect(runId).toMatch(/^acme_\d{8}T\d{6}Z_[0-9a-f]{6}$/);
    expect(runId).toMatch(SNAPSHOT_RUN_ID);
    const engineRun = await new RunRepo(t.rt.db).get(report.runId);
    expect(engineRun).toMatchObject({
      jobName: "snapshots.acme",
      jobType: "snapshots.ingest",
      status: "succeeded",
      leaseKey: "snapshots:acme",
    });

    const facts = lines(readFileSync(t.file(`runs/${runId}/facts.ndjson`), "utf8"));
    expect(facts).toEqual([
      {
        run_id: runId,
        supplier: "acme",
        row_id: contentHash({ name: "Молоток, 500 г", price_minor: 10000, qty: 5, sku: "A1" }),
        row_number: 2,
        payload: { name: "Молоток, 500 г", price_minor: 10000, qty: 5, sku: "A1" },
      },
      {
        run_id: runId,
        supplier: "acme",
        row_id: contentHash({ name: null, price_minor: 1250, qty: 3, sku: "A2" }),
        row_number: 3,
        payload: { name: null, price_minor: 1250, qty: 3, sku: "A2" },
      },
    ]);
    expect(lines(readFileSync(t.file(`runs/${runId}/bad.ndjson`), "utf8"))).toEqual([
      {
        run_id: runId,
        supplier: "acme",
        row_number: 4,
        reason_code: "INVALID_INTEGER",
        column: "qty",
        value: "x",
      },
    ]);
    expect(t.json(`runs/${runId}/stats.json`)).toMatchObject({
      total_rows: 3,
      good_rows: 2,
      bad_rows: 1,
      bad_ratio: 1 / 3,
      by_reason: { INVALID_INTEGER: 1 },
      diff: { previous_run_id: null, added: 2, removed: 0, changed: 0 },
    });
    const manifest = t.json(`runs/${runId}/manifest.json`);
    for (const field of [
      "run_id",
      "supplier",
      "input_filename",
      "input_sha256",
      "started_at",
      "finished_at",
      "good_rows",
      "bad_rows",
      "status",
      "code_commit",
    ]) {
      expect(manifest[field], field).toBeDefined();
    }
    expect(manifest).toMatchObject({
      run_id: runId,
      supplier: "acme",
      input_filename: "stock.csv",
      input_sha256: result.input_sha256,
      good_rows: 2,
      bad_rows: 1,
      status: "PASS",
      state_path: `state_store/acme/${runId}`,
      input_moved_to: "archive/acme/accepted/stock.csv",
    });
    expect(manifest.code_commit).toMatch(/^([0-9a-f]{40}|unknown|.+)$/);
    const sha = result.input_sha256!;
    expect(t.json(`accepted_runs/acme/${sha.slice(0, 2)}/${sha}.json`)).toMatchObject({
      run_id: runId,
      input_filename: "stock.csv",
      manifest_path: `runs/${runId}/manifest.json`,
      accepted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    // state_store written once, read-only; current is a symlink to it.
    const stateFacts = t.file(`state_store/acme/${runId}/facts.ndjson`);
    expect(readFileSync(stateFacts, "utf8")).toBe(
      readFileSync(t.file(`runs/${runId}/facts.ndjson`), "utf8"),
    );
    expect(statSync(stateFacts).mode & 0o222).toBe(0);
    expect(lstatSync(t.file("state/current/acme")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(t.file("state/current/acme"))).toBe(`../../state_store/acme/${runId}`);
  });

  it("full snapshot: SKUs missing from the next file are removed (now 0); added and changed are reported", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "d1.csv", csv("A1,a,5,1.00", "A2,b,3,1.00", "A3,c,1,1.00"), 200);
    const first = (await t.ingest("acme")).result;
    await t.put("acme", "d2.csv", csv("A1,a,5,1.00", "A2,b,4,1.00", "A4,d,9,1.00"), 100);
    const { result } = await t.ingest("acme");
    expect(result.diff).toEqual({
      previous_run_id: first.run_id,
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 1,
    });
    expect(t.json(`runs/${result.run_id}/stats.json`)).toMatchObject({
      diff: {
        samples: { added: [{ key: "A4" }], removed: [{ key: "A3" }], changed: [{ key: "A2" }] },
      },
    });
    expect((await t.stateFacts("acme")).map((f) => (f.payload as { sku: string }).sku)).toEqual([
      "A1",
      "A2",
      "A4",
    ]);
    // The replaced state stays on disk (retention), but only the new one is current.
    expect(t.exists(`state_store/acme/${first.run_id}/facts.ndjson`)).toBe(true);
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(result.run_id);
  });

  it("a key repeated in one file: the first row is kept, later ones are DUPLICATE_KEY bad rows", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG.replace("max_bad_ratio: 0.10", "max_bad_ratio: 0.5"));
    await t.put(
      "acme",
      "dups.csv",
      csv("A1,first,5,1.00", "A2,b,1,1.00", "A1,second,6,1.00", "A3,c,1,1.00"),
    );
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", good_rows: 3, bad_rows: 1 });
    const facts = await t.stateFacts("acme");
    expect(facts.map((f) => (f.payload as { name: string }).name)).toEqual(["first", "b", "c"]);
    const bad = lines(readFileSync(t.file(`runs/${result.run_id}/bad.ndjson`), "utf8"));
    expect(bad).toEqual([
      expect.objectContaining({ row_number: 4, reason_code: "DUPLICATE_KEY", key: "A1" }),
    ]);
    expect(t.json(`runs/${result.run_id}/stats.json`)).toMatchObject({
      by_reason: { DUPLICATE_KEY: 1 },
    });
  });
});
