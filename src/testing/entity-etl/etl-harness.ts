import { randomBytes } from "node:crypto";
import { executeRun, type RunRequest } from "../../engine/runs/job-runner.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import type { BlobStore } from "../../infra/blobs/blob-store.ts";
import { typed } from "../../infra/db/open-database.ts";
import type { DialectHarness } from "../dialects.ts";
import { ManualClock } from "../manual-clock.ts";
import type { startS3rver } from "../s3rver.ts";
import { openTestRuntime } from "../test-runtime.ts";
import { CountingBlobStore } from "./counting-blob-store.ts";
import { type EtlTestTables, etlTestRegistry, LEDGER_TABLE } from "./etl-test-pipeline.ts";
import { FakeCatalogue } from "./fake-catalogue.ts";

/** Which blob store a suite runs on. */
export type BlobDriver = "fs" | "s3";

/** Opens a blob store of the driver for one test (s3: a fresh folder of the shared s3rver). */
export function blobStoreFactory(
  driver: BlobDriver,
  s3: () => Awaited<ReturnType<typeof startS3rver>>,
): (rt: Runtime) => BlobStore {
  return (rt) => (driver === "fs" ? rt.blobs : s3().store(`t-${randomBytes(4).toString("hex")}/`));
}

/** A migrated runtime running the ETL test pipeline over a fake catalogue. */
export async function openEtlHarness(
  h: DialectHarness,
  blobsOf: (rt: Runtime) => BlobStore,
  opts: { env?: "dev" | "prod"; world?: FakeCatalogue; shareBlobs?: BlobStore } = {},
) {
  const world = opts.world ?? new FakeCatalogue(["a", "b", "c", "d", "e"]);
  const clock = new ManualClock("2026-05-01T08:00:00.000Z");
  const base = await openTestRuntime(h, { clock, registry: etlTestRegistry(world) });
  const blobs = new CountingBlobStore(opts.shareBlobs ?? blobsOf(base));
  const rt: Runtime = { ...base, blobs, config: { ...base.config, env: opts.env ?? "dev" } };
  const db = typed<EtlTestTables>(rt.db);
  const run = (jobType: string, params: object, req: Partial<RunRequest>) =>
    executeRun(rt, { jobName: "pull", jobType, params, ...req });
  return {
    rt,
    world,
    blobs,
    clock,
    db,
    /** Runs `etl.pull` (the entity ETL). */
    pull: (params: object = {}, req: Partial<RunRequest> = {}) => run("etl.pull", params, req),
    /** Runs `etl.reapply` (re-apply from the raw store). */
    reapply: (params: object = {}, req: Partial<RunRequest> = {}) =>
      run("etl.reapply", params, req),
    ledger: () => db.selectFrom(LEDGER_TABLE).selectAll().orderBy("source_id").execute(),
    things: () => db.selectFrom("etl.thing").selectAll().orderBy("id").execute(),
  };
}

/** What `openEtlHarness` gives a test. */
export type EtlHarness = Awaited<ReturnType<typeof openEtlHarness>>;
