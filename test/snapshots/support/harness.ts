import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PipelineServices } from "../../../src/engine/registry/pipeline-services.ts";
import { Registry } from "../../../src/engine/registry/registry.ts";
import { executeRun, type RunReport } from "../../../src/engine/runs/job-runner.ts";
import { pipelineServices } from "../../../src/engine/runs/pipeline-services.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import type { BlobStore } from "../../../src/infra/blobs/blob-store.ts";
import { MINIMAL_CONFIG } from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { snapshotsPipeline } from "../../../src/pipelines/snapshots/index.ts";
import type { SnapshotSettings } from "../../../src/pipelines/snapshots/settings.ts";
import { ingestSupplier } from "../../../src/pipelines/snapshots/stages/ingest/ingest-supplier.ts";
import { newSnapshotRunId } from "../../../src/pipelines/snapshots/stages/ingest/run-id.ts";
import type { IngestResult } from "../../../src/pipelines/snapshots/stages/ingest/types.ts";
import { openStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/open-storage.ts";
import type { SnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/snapshot-storage.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { ManualClock } from "../../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../../src/testing/test-runtime.ts";

/** The documented minimal config with the stability window off (tests set mtimes explicitly). */
export const CONFIG = MINIMAL_CONFIG.replace(
  "file_stability_window: 30",
  "file_stability_window: 0",
);

/** A CSV in the minimal config's shape. */
export function csv(...rows: string[]): string {
  return `sku,name,qty,price\n${rows.map((r) => `${r}\n`).join("")}`;
}

/** A migrated runtime with the snapshots pipeline, a manual clock and helpers on its tree. */
export interface SnapHarness {
  rt: Runtime;
  /** The snapshots pipeline's services on rt (its settings validated as tidemark.yaml's). */
  services: PipelineServices<SnapshotSettings>;
  clock: ManualClock;
  settings: SnapshotSettings;
  storage: SnapshotStorage;
  /** Absolute path of a key under the fs root. */
  file(key: string): string;
  exists(key: string): boolean;
  json<T = Record<string, unknown>>(key: string): T;
  /** Writes etl_ops/config/<supplier>.yaml. */
  config(supplier: string, yaml?: string): void;
  /** Drops a file in inbox/<supplier>/ with mtime = clock − ageSec (default 60 s). */
  put(supplier: string, name: string, body: string | Buffer, ageSec?: number): Promise<void>;
  /** One recorded engine run of snapshots.ingest. */
  ingest(
    supplier: string,
    options?: { dryRun?: boolean },
  ): Promise<{ report: RunReport; result: IngestResult }>;
  /** ingestSupplier directly, with a storage of the test's choosing (fault injection). */
  ingestWith(storage: SnapshotStorage, supplier: string): Promise<IngestResult>;
  /** Facts lines of the published state, parsed. */
  stateFacts(supplier: string): Promise<Array<Record<string, unknown>>>;
}

/** Opens the harness; `blobs` switches the tree to the object storage over that blob store. */
export async function snapshotHarness(
  h: DialectHarness,
  options: { blobs?: BlobStore; settings?: Record<string, unknown> } = {},
): Promise<SnapHarness> {
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const base = await openTestRuntime(h, { clock, registry: new Registry([snapshotsPipeline]) });
  base.config.pipelines.snapshots = {
    workers: 0,
    fsync: false,
    ...(options.blobs
      ? { storage: "s3", work_dir: path.join(base.config.dataDir, "scratch") }
      : {}),
    ...options.settings,
  };
  const rt: Runtime = options.blobs ? { ...base, blobs: options.blobs } : base;
  const services = pipelineServices<SnapshotSettings>(rt, "snapshots");
  const { settings } = services;
  const storage = openStorage(settings, rt.blobs);
  const file = (key: string) => path.join(settings.root, ...key.split("/"));
  const harness: SnapHarness = {
    rt,
    services,
    clock,
    settings,
    storage,
    file,
    exists: (key) => existsSync(file(key)),
    json: (key) => JSON.parse(readFileSync(file(key), "utf8")),
    config(supplier, yaml = CONFIG) {
      mkdirSync(settings.configDir, { recursive: true });
      writeFileSync(path.join(settings.configDir, `${supplier}.yaml`), yaml);
    },
    async put(supplier, name, body, ageSec = 60) {
      if (options.blobs) {
        await storage.writeText(`inbox/${supplier}/${name}`, body.toString());
        return;
      }
      const target = file(`inbox/${supplier}/${name}`);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, body);
      const t = new Date(clock.now().getTime() - ageSec * 1000);
      utimesSync(target, t, t);
    },
    async ingest(supplier, opts = {}) {
      const report = await executeRun(rt, {
        jobName: `snapshots.${supplier}`,
        jobType: "snapshots.ingest",
        params: { supplier },
        dryRun: opts.dryRun,
      });
      if (report.error && !(report.summary as { run_id?: string }).run_id) {
        throw new Error(`ingestion error: ${report.error}`);
      }
      return { report, result: report.summary as unknown as IngestResult };
    },
    ingestWith(s, supplier) {
      return ingestSupplier(
        {
          storage: s,
          settings,
          db: rt.db,
          clock,
          logger: rt.logger,
          runId: newSnapshotRunId(
            supplier,
            new Date(Math.floor(clock.now().getTime() / 1000) * 1000),
          ),
          engineRunId: null,
          dryRun: false,
        },
        supplier,
      );
    },
    async stateFacts(supplier) {
      const pointer = await storage.readCurrent(supplier);
      if (!pointer) return [];
      const text = (await storage.readText(`${pointer.state_path}/facts.ndjson`)) ?? "";
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
  return harness;
}

/** A storage whose methods can be intercepted (fault injection between steps). */
export function interceptStorage(
  inner: SnapshotStorage,
  hooks: Partial<{ [K in keyof SnapshotStorage]: SnapshotStorage[K] }>,
): SnapshotStorage {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const hook = hooks[prop as keyof SnapshotStorage];
      if (hook) return hook;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
