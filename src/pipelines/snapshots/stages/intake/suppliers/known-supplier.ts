import { existsSync, readdirSync } from "node:fs";
import { type Clock, type Database, NotFoundError } from "tidemark";
import type { BlobStore } from "tidemark/kit";
import { HistoryRepo } from "../../../repos/history-repo.ts";
import type { SnapshotSettings } from "../../../settings.ts";
import { openStorage } from "../../publish/storage/open-storage.ts";
import type { SnapshotStorage } from "../../publish/storage/snapshot-storage.ts";
import { supplierConfigFile } from "../config/load-supplier-config.ts";
import { isSupplierName } from "../layout/supplier-name.ts";

/** What the supplier lookups and snapshotsStatus need: the pipeline's services or a JobContext fit. */
export interface StatusSources {
  settings: SnapshotSettings;
  db: Database;
  blobs: BlobStore;
  clock: Clock;
}

/** True when anything of the supplier exists: a config file, an inbox folder, a state or a run. */
export async function isKnownSupplier(sources: StatusSources, supplier: string): Promise<boolean> {
  const { settings } = sources;
  if (existsSync(supplierConfigFile(settings.configDir, supplier))) return true;
  const storage = openStorage(settings, sources.blobs);
  if ((await storage.listDirs("inbox")).includes(supplier)) return true;
  if (await storage.readCurrent(supplier).catch(() => undefined)) return true;
  return (await new HistoryRepo(sources.db).recentRuns(supplier, 1)).length > 0;
}

/** Refuses (exit 2) a supplier of which nothing exists, saying how to add it. */
export async function requireKnownSupplier(
  sources: StatusSources,
  supplier: string,
): Promise<void> {
  if (await isKnownSupplier(sources, supplier)) return;
  const file = supplierConfigFile(sources.settings.configDir, supplier);
  throw new NotFoundError(
    `unknown supplier ${supplier}: no config file ${file}, no inbox folder, no published state, no runs (add it: tidemark snapshots supplier add ${supplier})`,
  );
}

function configSuppliers(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => f.replace(/\.ya?ml$/, ""));
  } catch {
    return [];
  }
}

/** Every supplier known from configs, inboxes, published states or run history. */
export async function knownSuppliers(
  storage: SnapshotStorage,
  configDir: string,
  history?: HistoryRepo,
): Promise<string[]> {
  const names = new Set<string>([
    ...configSuppliers(configDir),
    ...(await storage.listDirs("inbox")),
    ...(await storage.listCurrent()),
    ...((await history?.suppliers()) ?? []),
  ]);
  return [...names].filter(isSupplierName).sort();
}
