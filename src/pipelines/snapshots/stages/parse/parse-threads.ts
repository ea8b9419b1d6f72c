import { availableParallelism } from "node:os";
import type { WarmThreads } from "tidemark/kit";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import type { StorageEntry } from "../publish/storage/snapshot-storage.ts";
import { csvWorkerThreads } from "./byte-csv/csv-worker-pool.ts";
import { isAsciiCompatible } from "./byte-csv/record-splitter.ts";
import { xlsxWorkerThreads } from "./extract/read-xlsx-worker.ts";
import { PARALLEL_MIN_BYTES, XLSX_WORKER_MIN_BYTES } from "./parse-input.ts";

/**
 * The parse's worker threads, started ahead of the parse: by `snapshots run` while the engine
 * opens the run (early-threads.ts), then while the run selects and hashes its input. A
 * thread's start-up then runs on a core left idle, and the parse begins with its threads ready.
 * Each time, at most one thread per core the main thread leaves free is started (on two cores,
 * one while the run opens and one beside the hash: two starting beside the hash slowed it from
 * ~40 to ~90 ms on the 1M bench file); the parse starts whatever is still missing. A guess from
 * the config and the newest stable file: a wrong one costs a thread start, never a result (the
 * parse takes what is warm and starts what is missing).
 */
export class ParseThreads {
  readonly csv: WarmThreads = csvWorkerThreads();
  readonly xlsx: WarmThreads = xlsxWorkerThreads();
  /** Threads being stopped in the background (see stopSoon). */
  readonly #stopping: Array<Promise<unknown>> = [];

  /**
   * `workers`: the CSV worker threads a large file is parsed on (0: none); `cores`: the
   * machine's (the default: what Node reports).
   */
  constructor(
    private readonly workers: number,
    private readonly cores = availableParallelism(),
  ) {}

  /**
   * Starts threads the parse of `newest` (the likely choice) will take: one more per core the
   * main thread leaves free, beside those already idle. Called before the run opens, then
   * again at selection: on two cores, one thread starts while the run opens, one beside the hash.
   */
  warmFor(cfg: SupplierConfig, newest: StorageEntry | undefined): void {
    if (this.workers === 0 || newest === undefined) return;
    const xlsx = cfg.format === "xlsx" || (cfg.format === "auto" && /\.xlsx$/i.test(newest.name));
    if (xlsx) {
      if (newest.size >= XLSX_WORKER_MIN_BYTES) this.xlsx.warm(1);
    } else if (newest.size >= PARALLEL_MIN_BYTES && isAsciiCompatible(cfg.encoding)) {
      this.csv.warm(Math.min(this.workers, this.csv.idle + this.cores - 1));
    }
  }

  /** Threads started and not taken yet. */
  get idle(): number {
    return this.csv.idle + this.xlsx.idle;
  }

  /**
   * Starts stopping the threads the parse did not take, and `taken` (what holds threads taken
   * from these, e.g. the key check's pool), without waiting: a thread's exit took 7-15 ms that
   * the run then spent before publishing; close() waits for them.
   */
  stopSoon(taken?: { close(): Promise<void> }): void {
    const stopping = Promise.all([taken?.close(), this.csv.close(), this.xlsx.close()]);
    // Awaited by close(); until then a failure must not count as unhandled.
    stopping.catch(() => {});
    this.#stopping.push(stopping);
  }

  /** Stops the threads the parse did not take; waits for those stopSoon began to stop. */
  async close(): Promise<void> {
    await Promise.all([this.csv.close(), this.xlsx.close(), ...this.#stopping]);
  }
}
