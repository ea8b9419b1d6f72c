/**
 * Snapshots pipeline (docs/pipelines/snapshots.md): ingestion of supplier full-snapshot files
 * (CSV/XLSX) from an inbox into an immutable, atomically published per-supplier state.
 * This module stays light (zod + definition helpers): every implementation loads on first use.
 */
import { defineJobType, definePipeline, lazyMigrations } from "tidemark";
import { snapshotsCommands } from "./commands.ts";
import { ingestParams, supplierLeaseKey } from "./params.ts";
import { type SnapshotSettings, snapshotsSettings } from "./settings.ts";
import { describeResult } from "./stages/ingest/describe-result.ts";
import type { IngestResult } from "./stages/ingest/types.ts";

/** `snapshots.ingest`: one ingestion of a supplier's inbox. */
export const ingestJobType = defineJobType({
  name: "snapshots.ingest",
  description: "ingest the newest stable full-snapshot file of a supplier into its published state",
  params: ingestParams,
  settings: snapshotsSettings,
  example: { supplier: "acme" },
  leaseKey: (_job, params) => supplierLeaseKey(params.supplier),
  // One id per run: the engine's run id is the snapshots run id (manifest, runs/, state).
  runIdPrefix: (_job, params) => params.supplier,
  summaryLines: (summary) => describeResult(summary as unknown as IngestResult),
  async run(ctx, params) {
    const { runIngestJob } = await import("./jobs/ingest-job.ts");
    return runIngestJob(ctx, params.supplier);
  },
});

/** The pipeline definition registered in src/pipelines/index.ts. */
export const snapshotsPipeline = definePipeline({
  name: "snapshots",
  description:
    "supplier full-snapshot files (CSV, XLSX) → checked, immutable, atomically published state",
  jobTypes: [ingestJobType],
  settings: snapshotsSettings,
  migrations: lazyMigrations({
    "0001-snapshots": () => import("./migrations/0001-snapshots.ts"),
  }),
  async metrics(register, services) {
    const [{ registerSnapshotsMetrics }, { snapshotsStatus }] = await Promise.all([
      import("./monitoring/metrics.ts"),
      import("./monitoring/status.ts"),
    ]);
    // The registry hands this pipeline's settings, validated with snapshotsSettings.
    const sources = { ...services, settings: services.settings as SnapshotSettings };
    await registerSnapshotsMetrics(register, () => snapshotsStatus(sources));
  },
  commandGroups: [
    {
      path: ["snapshots"],
      description: "supplier full-snapshot ingestion: supplier add, run, status, read, gc",
    },
    { path: ["snapshots", "supplier"], description: "set up a supplier: add" },
  ],
  commands: snapshotsCommands,
  panel: {
    title: "Snapshots",
    load: async () => (await import("./panel/snapshots-panel.ts")).snapshotsPanel,
  },
  fake: {
    description:
      "a supplier (fake-supplier) dropping a full-snapshot CSV into its inbox now and a changed one every 30 s",
    async start(options) {
      const { startSnapshotsFake } = await import("./fake/start-fake.ts");
      return startSnapshotsFake(options);
    },
  },
  async demo(ctx) {
    const { runDemo } = await import("./demo.ts");
    await runDemo(ctx);
  },
});
