import { availableParallelism } from "node:os";
import type { WarmThreads } from "tidemark/kit";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import type { StorageEntry } from "../publish/storage/snapshot-storage.ts";
import { csvWorkerThreads } from "./byte-csv/csv-worker-pool.ts";
import { isAsciiCompatible } from "./byte-csv/record-splitter.ts";
import { xlsxWorkerThreads } from "./extract/read-xlsx-worker.ts";
import { PARALLEL_MIN_BYTES, XLSX_WORKER_MIN_BYTES } from "./parse-input.ts";

/**
 * The parse's worker threads, started while the run still selects and hashes its input: a
 * thread's start-up then runs on a core that hashing leaves idle, and the parse begins with
 * its threads ready. Hashing keeps one core busy, so at most one thread fewer than the cores
 * is started then (on two cores, one: two threads starting beside the hash slowed it from ~40
 * to ~90 ms on the 1M bench file); the parse starts the rest. A guess from the config and the
 * newest stable file: a wrong one costs a thread start, never a result (the parse takes what
 * is warm and starts what is missing).
 */
export class ParseThreads {
  readonly csv: WarmThreads = csvWorkerThreads();
  readonly xlsx: WarmThreads = xlsxWorkerThreads();

  /**
   * `workers`: the CSV worker threads a large file is parsed on (0: none); `cores`: the
   * machine's (the default: what Node reports).
   */
  constructor(
    private readonly workers: number,
    private readonly cores = availableParallelism(),
  ) {}

  /** Starts the threads the parse of `newest` (the likely choice) will take. */
  warmFor(cfg: SupplierConfig, newest: StorageEntry | undefined): void {
    if (this.workers === 0 || newest === undefined) return;
    const xlsx = cfg.format === "xlsx" || (cfg.format === "auto" && /\.xlsx$/i.test(newest.name));
    if (xlsx) {
      if (newest.size >= XLSX_WORKER_MIN_BYTES) this.xlsx.warm(1);
    } else if (newest.size >= PARALLEL_MIN_BYTES && isAsciiCompatible(cfg.encoding)) {
      this.csv.warm(Math.min(this.workers, this.cores - 1));
    }
  }

  /** Stops the threads the parse did not take. */
  async close(): Promise<void> {
    await Promise.all([this.csv.close(), this.xlsx.close()]);
  }
}
