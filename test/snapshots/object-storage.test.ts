import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, expect, it } from "vitest";
import { S3BlobStore } from "../../src/infra/blobs/s3-blob-store.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { csv, snapshotHarness } from "./support/harness.ts";

const BUCKET = "tm-snap-e2e";
let server: S3rver;
let endpoint: string;
let dir: string;
const stores: S3BlobStore[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "tm-s3rver-"));
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: BUCKET }],
  });
  endpoint = `http://127.0.0.1:${(await server.run()).port}`;
});

afterAll(async () => {
  for (const s of stores) s.destroy();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function blobs(): S3BlobStore {
  const s = new S3BlobStore({
    bucket: BUCKET,
    prefix: `run${stores.length}-${Date.now()}/`,
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  stores.push(s);
  return s;
}

describeEachDialect("snapshots on the S3 blob store (pointer object)", (h) => {
  it("ingests from an S3 inbox, publishes by state/current/<supplier>.json, diffs and dedupes from S3", async () => {
    const store = blobs();
    const t = await snapshotHarness(h, { blobs: store });
    t.config("acme");
    t.clock.advance(120_000);
    await t.put("acme", "d1.csv", csv("A1,a,5,1.00", "A2,b,3,1.00"));
    const first = (await t.ingest("acme")).result;
    expect(first).toMatchObject({
      status: "PASS",
      good_rows: 2,
      input_moved_to: "archive/acme/accepted/d1.csv",
    });
    const pointer = JSON.parse(
      (await store.get("etl_data/raw_v1/state/current/acme.json")).toString(),
    );
    expect(pointer).toMatchObject({
      run_id: first.run_id,
      state_path: `state_store/acme/${first.run_id}`,
      fact_count: 2,
    });
    expect(
      await store.exists(`etl_data/raw_v1/state_store/acme/${first.run_id}/facts.ndjson`),
    ).toBe(true);
    expect(await store.exists(`etl_data/raw_v1/runs/${first.run_id}/manifest.json`)).toBe(true);
    const sha = first.input_sha256!;
    expect(
      await store.exists(`etl_data/raw_v1/accepted_runs/acme/${sha.slice(0, 2)}/${sha}.json`),
    ).toBe(true);
    expect(await store.exists("etl_data/raw_v1/inbox/acme/d1.csv")).toBe(false);

    await t.put("acme", "d1-again.csv", csv("A1,a,5,1.00", "A2,b,3,1.00"));
    expect((await t.ingest("acme")).result).toMatchObject({
      status: "NO_INPUT",
      inbox: { duplicates: ["d1-again.csv"] },
    });

    await t.put("acme", "d2.csv", csv("A2,b,4,1.00", "A3,c,1,1.00"));
    const second = (await t.ingest("acme")).result;
    expect(second.diff).toEqual({
      previous_run_id: first.run_id,
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 0,
    });
    expect((await t.stateFacts("acme")).map((f) => (f.payload as { sku: string }).sku)).toEqual([
      "A2",
      "A3",
    ]);

    await t.put("acme", "bad.csv", "sku,name\nA1,x\n");
    expect((await t.ingest("acme")).result).toMatchObject({
      status: "FAIL",
      reason_code: "REQUIRED_COLUMNS_MISSING",
    });
    expect(await store.exists("etl_data/raw_v1/quarantine/acme/broken/bad.csv")).toBe(true);
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(second.run_id);
  });
});
