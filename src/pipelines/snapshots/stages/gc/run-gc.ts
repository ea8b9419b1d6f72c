import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import type { PipelineServices } from "tidemark";
import { startHeartbeat } from "tidemark/kit";
import { HistoryRepo } from "../../repos/history-repo.ts";
import type { SnapshotSettings } from "../../settings.ts";
import { formatBytes } from "../ingest/byte-size.ts";
import { findLeftovers, type Leftover } from "../ingest/dead-run-leftovers.ts";
import { parseSnapshotRunId } from "../ingest/run-id.ts";
import { loadSupplierConfig } from "../intake/config/load-supplier-config.ts";
import { supplierConfigSchema } from "../intake/config/supplier-config.ts";
import { checkSupplierName } from "../intake/layout/supplier-name.ts";
import { knownSuppliers } from "../intake/suppliers/known-supplier.ts";
import { openStorage } from "../publish/storage/open-storage.ts";
import type { SnapshotStorage } from "../publish/storage/snapshot-storage.ts";
import { type GcItem, planSupplierGc } from "./plan-gc.ts";

/** What one gc pass did (or would do, with dryRun). */
export interface GcReport {
  dryRun: boolean;
  deleted: GcItem[];
  /** Bytes of everything in deleted. */
  deletedBytes: number;
  kept: GcItem[];
  /** Suppliers not collected, and why (locked by a run, invalid config). */
  skipped: Array<{ supplier: string; reason: "invalid-config" | "locked"; why: string }>;
}

/** What gc uses of the pipeline's services. */
type GcServices = Pick<
  PipelineServices<SnapshotSettings>,
  "settings" | "blobs" | "clock" | "db" | "leases" | "logger" | "config"
>;

/** Retention used when a supplier has no config file. */
const DEFAULTS = supplierConfigSchema.parse({
  min_fact_count: 0,
  max_bad_ratio: 0,
  allow_empty_snapshot: true,
  key: "k",
  columns: [{ name: "k" }],
});

async function remove(storage: SnapshotStorage, item: GcItem): Promise<void> {
  if (item.kind === "run" || item.kind === "diag" || item.kind === "state") {
    await storage.removeDir(item.key);
  } else if (item.kind === "workdir") {
    await rm(item.key, { recursive: true, force: true });
  } else if (item.kind === "partial") {
    await storage.removePartialWrite(item.key);
  } else {
    await storage.remove(item.key);
  }
}

/** The item with its size in bytes and for people (folders summed). */
async function sized(storage: SnapshotStorage, item: GcItem): Promise<GcItem> {
  let bytes = item.bytes;
  if (
    bytes === undefined &&
    (item.kind === "run" || item.kind === "diag" || item.kind === "state")
  ) {
    bytes = 0;
    for await (const e of storage.walkFiles(item.key)) bytes += e.size;
  }
  bytes ??= (await storage.stat(item.key))?.size ?? 0;
  return { ...item, bytes, size: formatBytes(bytes) };
}

/** A killed run's leftover as a gc item. */
function leftoverItem(supplier: string, l: Leftover): GcItem {
  const why =
    l.kind === "workdir"
      ? `work dir of dead run ${l.run_id}`
      : `unfinished upload of a killed run${l.run_id ? ` (${l.run_id})` : ""}`;
  return { supplier, kind: l.kind, key: l.key, why, bytes: l.bytes };
}

/**
 * s3 storage: scratch folders of no supplier gc looked at (another installation's, an unknown
 * supplier's, not a run's) once a day old, unless their supplier's lease is held (a live run).
 */
async function staleScratch(
  services: GcServices,
  storage: SnapshotStorage,
  seen: ReadonlySet<string>,
  now: Date,
): Promise<GcItem[]> {
  const out: GcItem[] = [];
  for (const dir of await storage.listWorkDirs()) {
    if (now.getTime() - dir.mtimeMs <= 86_400_000) continue;
    const supplier = parseSnapshotRunId(dir.name)?.supplier;
    if (supplier && seen.has(supplier)) continue;
    if (supplier && (await services.leases.isHeld(`snapshots:${supplier}`))) continue;
    out.push({
      supplier: "*",
      kind: "workdir",
      key: dir.path,
      why: "stale local scratch folder",
      bytes: dir.bytes,
    });
  }
  return out;
}

/**
 * `tidemark snapshots gc`: per supplier, under its lock (a supplier being ingested is skipped),
 * applies the retention plan and deletes what its killed runs left (work dirs, unfinished
 * uploads); every deletion is sized. There is no way to delete the active state.
 */
export async function runGc(
  services: GcServices,
  options: { dryRun: boolean; supplier?: string },
): Promise<GcReport> {
  const { settings } = services;
  const storage = openStorage(settings, services.blobs);
  const now = services.clock.now();
  const report: GcReport = {
    dryRun: options.dryRun,
    deleted: [],
    deletedBytes: 0,
    kept: [],
    skipped: [],
  };
  const history = new HistoryRepo(services.db);
  // Suppliers whose scratch folders were decided under their lease (or spared: it was held).
  const seen = new Set<string>();
  const suppliers = options.supplier
    ? [checkSupplierName(options.supplier)]
    : await knownSuppliers(storage, settings.configDir, history);
  for (const supplier of suppliers) {
    const loaded = loadSupplierConfig(settings.configDir, supplier);
    if (!loaded.ok && loaded.reason === "CONFIG_INVALID") {
      report.skipped.push({
        supplier,
        reason: "invalid-config",
        why: `invalid config: ${loaded.detail}`,
      });
      continue;
    }
    const cfg = loaded.ok ? loaded.config : DEFAULTS;
    const key = `snapshots:${supplier}`;
    const holder = `gc_${randomBytes(4).toString("hex")}`;
    const ttl = services.config.runs?.leaseTtlMs ?? 60_000;
    seen.add(supplier);
    if (!(await services.leases.tryAcquire(key, holder, ttl))) {
      report.skipped.push({
        supplier,
        reason: "locked",
        why: "locked: a run of this supplier is in progress",
      });
      continue;
    }
    let lost = false;
    const heartbeat = startHeartbeat({
      leases: services.leases,
      key,
      holder,
      ttlMs: ttl,
      logger: services.logger,
      onLost: () => {
        lost = true;
      },
    });
    try {
      const plan = await planSupplierGc(storage, supplier, cfg, now);
      report.kept.push(...plan.keep);
      // We hold the supplier's lease: no run of it is alive, whatever it left is dead.
      const leftovers = await findLeftovers(storage, history, supplier);
      for (const item of [...plan.delete, ...leftovers.map((l) => leftoverItem(supplier, l))]) {
        // Without the lock a run may be publishing: stop rather than race it.
        if (lost) throw new Error(`gc lost the lock of ${supplier}; stopped`);
        const withSize = await sized(storage, item);
        if (!options.dryRun) await remove(storage, item);
        report.deleted.push(withSize);
        report.deletedBytes += withSize.bytes ?? 0;
      }
    } finally {
      heartbeat.stop();
      await services.leases.release(key, holder);
    }
  }
  if (settings.storage === "s3" && !options.supplier) {
    for (const item of await staleScratch(services, storage, seen, now)) {
      const withSize = await sized(storage, item);
      if (!options.dryRun) await remove(storage, item);
      report.deleted.push(withSize);
      report.deletedBytes += withSize.bytes ?? 0;
    }
  }
  return report;
}
