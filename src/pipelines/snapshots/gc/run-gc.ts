import { randomBytes } from "node:crypto";
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { type Runtime, startHeartbeat } from "../../../engine/index.ts";
import { loadSupplierConfig } from "../config/load-supplier-config.ts";
import { supplierConfigSchema } from "../config/supplier-config.ts";
import { checkSupplierName } from "../layout/supplier-name.ts";
import { knownSuppliers } from "../monitoring/status.ts";
import { HistoryRepo } from "../repos/history-repo.ts";
import { resolveSettings } from "../settings.ts";
import { openStorage } from "../storage/open-storage.ts";
import type { SnapshotStorage } from "../storage/snapshot-storage.ts";
import { type GcItem, planSupplierGc } from "./plan-gc.ts";

/** What one gc pass did (or would do, with dryRun). */
export interface GcReport {
  dryRun: boolean;
  deleted: GcItem[];
  kept: GcItem[];
  /** Suppliers not collected, and why (locked by a run, invalid config). */
  skipped: Array<{ supplier: string; why: string }>;
}

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
  } else {
    await storage.remove(item.key);
  }
}

/** s3 storage: local scratch folders of runs that died more than a day ago. */
async function staleScratch(workDir: string, now: Date): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(workDir).catch(() => [] as string[])) {
    const s = await stat(path.join(workDir, name)).catch(() => undefined);
    if (s && now.getTime() - s.mtimeMs > 86_400_000) out.push(path.join(workDir, name));
  }
  return out;
}

/**
 * `tidemark snapshots gc`: per supplier, under its lock (a supplier being ingested is skipped),
 * applies the retention plan. There is no way to delete the active state.
 */
export async function runGc(
  runtime: Runtime,
  options: { dryRun: boolean; supplier?: string },
): Promise<GcReport> {
  const settings = resolveSettings(runtime.config);
  const storage = openStorage(settings, runtime.blobs);
  const now = runtime.clock.now();
  const report: GcReport = { dryRun: options.dryRun, deleted: [], kept: [], skipped: [] };
  const suppliers = options.supplier
    ? [checkSupplierName(options.supplier)]
    : await knownSuppliers(storage, settings.configDir, new HistoryRepo(runtime.db));
  for (const supplier of suppliers) {
    const loaded = loadSupplierConfig(settings.configDir, supplier);
    if (!loaded.ok && loaded.reason === "CONFIG_INVALID") {
      report.skipped.push({ supplier, why: `invalid config: ${loaded.detail}` });
      continue;
    }
    const cfg = loaded.ok ? loaded.config : DEFAULTS;
    const key = `snapshots:${supplier}`;
    const holder = `gc_${randomBytes(4).toString("hex")}`;
    const ttl = runtime.config.runs?.leaseTtlMs ?? 60_000;
    if (!(await runtime.leases.tryAcquire(key, holder, ttl))) {
      report.skipped.push({ supplier, why: "locked: a run of this supplier is in progress" });
      continue;
    }
    let lost = false;
    const heartbeat = startHeartbeat({
      leases: runtime.leases,
      key,
      holder,
      ttlMs: ttl,
      logger: runtime.logger,
      onLost: () => {
        lost = true;
      },
    });
    try {
      const plan = await planSupplierGc(storage, supplier, cfg, now);
      report.kept.push(...plan.keep);
      for (const item of plan.delete) {
        // Without the lock a run may be publishing: stop rather than race it.
        if (lost) throw new Error(`gc lost the lock of ${supplier}; stopped`);
        if (!options.dryRun) await remove(storage, item);
        report.deleted.push(item);
      }
    } finally {
      heartbeat.stop();
      await runtime.leases.release(key, holder);
    }
  }
  if (settings.storage === "s3" && !options.supplier) {
    for (const dir of await staleScratch(settings.workDir, now)) {
      if (!options.dryRun) await rm(dir, { recursive: true, force: true });
      report.deleted.push({
        supplier: "*",
        kind: "run",
        key: dir,
        why: "stale local scratch folder",
      });
    }
  }
  return report;
}
