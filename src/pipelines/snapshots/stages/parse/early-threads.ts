/**
 * Parse threads started by `snapshots run` before the engine opens the supplier's run. Opening
 * it (the stored job, the lease, the run row, recovery, the config) keeps the main thread busy
 * for ~100 ms while the other cores idle. Threads started here (one per core but the main
 * thread's) are ready by the time the run hashes its input, when it starts one more per free
 * core (ParseThreads.warmFor); on two cores both are ready when the hash ends, where the second
 * used to be ready ~100-200 ms into the parse. The same guess as at the hash, from the config
 * and the newest stable inbox file: a wrong one costs thread starts, never a result. The run
 * takes them (threadsForRun); the command stops whatever its run did not take.
 */
import { availableParallelism } from "node:os";
import { loadSupplierConfig } from "../intake/config/load-supplier-config.ts";
import { stableFiles } from "../intake/inbox/select-input.ts";
import { inboxDir } from "../intake/layout/tree.ts";
import type { SnapshotStorage } from "../publish/storage/snapshot-storage.ts";
import { ParseThreads } from "./parse-threads.ts";

/** Threads started for a supplier's coming run, by supplier. */
const waiting = new Map<string, ParseThreads>();

/** What warmBeforeRun needs. */
export interface EarlyWarm {
  configDir: string;
  storage: SnapshotStorage;
  supplier: string;
  /** The CSV worker threads setting (0: none). */
  workers: number;
  now: Date;
  /** The machine's cores (the default: what Node reports). */
  cores?: number;
}

/**
 * Starts threads the supplier's coming run will likely parse its input on: one per core the
 * main thread leaves free. Nothing when the config does not load or the inbox holds no stable
 * file big enough; errors reading either are left to the run, which reports them.
 */
export async function warmBeforeRun(o: EarlyWarm): Promise<void> {
  if (o.workers === 0) return;
  const loaded = loadSupplierConfig(o.configDir, o.supplier);
  if (!loaded.ok) return;
  const cfg = loaded.config;
  const listing = await o.storage.listFiles(inboxDir(o.supplier)).catch(() => []);
  const rule = { windowSeconds: cfg.file_stability_window, atomicRename: cfg.atomic_rename };
  const newest = stableFiles(listing, rule, o.now).stable[0];
  const threads = new ParseThreads(o.workers, o.cores ?? availableParallelism());
  threads.warmFor(cfg, newest);
  await dropEarlyThreads(o.supplier);
  if (threads.idle > 0) waiting.set(o.supplier, threads);
}

/** The parse threads of the supplier's run: those started for it early, else new ones. */
export function threadsForRun(supplier: string, workers: number): ParseThreads {
  const early = waiting.get(supplier);
  waiting.delete(supplier);
  return early ?? new ParseThreads(workers);
}

/** Stops the threads started for the supplier's run if the run did not take them. */
export async function dropEarlyThreads(supplier: string): Promise<void> {
  const early = waiting.get(supplier);
  waiting.delete(supplier);
  await early?.close();
}
