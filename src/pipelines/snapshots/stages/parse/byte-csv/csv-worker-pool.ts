import { closeSync, fstatSync, openSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import { WarmThreads } from "tidemark/kit";
import { CsvSyntaxError } from "../extract/csv-records.ts";
import { EncodingError } from "../input/text-decoder.ts";
import { type BatchOutput, type BatchSetup, CsvBatchProcessor } from "./csv-batch.ts";
import type { WorkerBatch, WorkerDone, WorkerError, WorkerInit } from "./csv-worker.ts";
import { type DirectFacts, finishDirectFacts, openDirectFacts } from "./direct-facts.ts";
import { OutputSync, type SyncPlan } from "./output-sync.ts";
import { Waiter } from "./waiter.ts";

/** A worker failed to read a batch. */
export class WorkerBatchError extends Error {
  constructor(
    readonly kind: WorkerError["kind"],
    message: string,
  ) {
    super(message);
    this.name = "WorkerBatchError";
  }
}

/**
 * The byte-level path allocates little, so a small young generation costs nothing and keeps
 * each worker's memory (and the process's peak RSS) down.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** CSV worker threads, to start ahead of a parse (see WarmThreads) or as the pool needs them. */
export function csvWorkerThreads(): WarmThreads {
  return new WarmThreads(import.meta.url, "csv-worker", WORKER_LIMITS);
}

/** Where batches go: worker threads, or the calling thread. */
export interface BatchRunner {
  /** Memory for the next batch (recycled when possible). */
  alloc(n: number): Uint8Array;
  /** Sends whole records that start at line `firstLine`, byte `firstByte` of the file. */
  submit(firstLine: number, bytes: Uint8Array, firstByte: number): Promise<void>;
  drain(): Promise<void>;
  /** Ends a read that drained: threads go back where they came from, for the run's next stage. */
  release(): Promise<void>;
  /** Stops everything (after a failure, or a release). */
  close(): Promise<void>;
  /** Whether the facts go out with direct I/O. */
  readonly writesDirect: boolean;
}

const BATCH_BUFFER_BYTES = 2 << 20;

/** Processes batches on the calling thread (small files, or workers: 0). */
export class InlineBatchRunner implements BatchRunner {
  readonly writesDirect = false;
  readonly #processor: CsvBatchProcessor;
  #buffer = new ArrayBuffer(BATCH_BUFFER_BYTES);

  constructor(
    setup: BatchSetup,
    private readonly onResult: (r: BatchOutput) => void,
  ) {
    this.#processor = new CsvBatchProcessor(setup);
  }

  /** One buffer serves every batch: each is processed before the next is cut. */
  alloc(n: number): Uint8Array {
    if (this.#buffer.byteLength < n) this.#buffer = new ArrayBuffer(n);
    return new Uint8Array(this.#buffer, 0, n);
  }

  async submit(firstLine: number, bytes: Uint8Array, firstByte: number): Promise<void> {
    try {
      this.onResult(this.#processor.process(bytes, firstLine, firstByte));
    } catch (err) {
      if (err instanceof EncodingError) throw new WorkerBatchError("encoding", err.message);
      if (err instanceof CsvSyntaxError) throw new WorkerBatchError("syntax", err.message);
      throw err;
    }
  }

  async drain(): Promise<void> {}

  async release(): Promise<void> {}

  async close(): Promise<void> {}
}

/**
 * Round-robin pool of CSV workers with at most two batches in flight per worker. Workers write
 * their output into the files themselves, at byte ranges reserved in batch order (see
 * csv-worker.ts), through fds of their own that the pool opens on the sinks' paths and closes;
 * the pool collects the counts, which do not depend on order.
 */
export class CsvWorkerPool implements BatchRunner {
  readonly #workers: Worker[] = [];
  /** Batches sent to each worker and not yet written. */
  readonly #inFlight: number[] = [];
  readonly #turn: Int32Array;
  /** Batch buffers the workers handed back, for reuse. */
  readonly #free: ArrayBuffer[] = [];
  #submitted = 0;
  #done = 0;
  #failure: Error | undefined;
  readonly #waiter = new Waiter();
  /** Where the workers came from and go back to (undefined: they are stopped instead). */
  readonly #threads: WarmThreads | undefined;

  /** Positional-write fds of the output files (ours to close). */
  readonly #fds: number[];

  /** Where each output file's written part ends (shared with the workers). */
  readonly #ends: Float64Array;

  /** The facts file's direct writes (see direct-facts.ts), where the file system takes them. */
  #direct: DirectFacts | undefined;

  /** Whether the facts go out with direct I/O (asked for, and the file system took it). */
  readonly writesDirect: boolean;

  /** Syncs the outputs as they grow (when asked). */
  readonly #sync: OutputSync | undefined;

  /**
   * Starts the workers. `files` are the output files in WorkerInit.fds order, each flushed:
   * their current sizes are where the first batch's ranges begin. Threads already started
   * ahead (`threads`) are taken first, and release() gives them back. With `sync`, the first
   * `sync.files` files are synced to disk in the background as the facts grow. With `direct`,
   * the facts (the first file) are written with direct I/O where the file system takes it.
   */
  constructor(
    count: number,
    setup: BatchSetup,
    files: string[],
    private readonly onCounts: (counts: WorkerDone["counts"]) => void,
    { threads, sync, direct }: { threads?: WarmThreads; sync?: SyncPlan; direct?: boolean } = {},
  ) {
    this.#threads = threads;
    const turn = new SharedArrayBuffer(8);
    this.#turn = new Int32Array(turn);
    this.#fds = files.map((f) => openSync(f, "r+"));
    const ends = new SharedArrayBuffer(8 * files.length);
    const view = new Float64Array(ends);
    this.#ends = view;
    this.#fds.forEach((fd, i) => {
      view[i] = fstatSync(fd).size;
    });
    this.#direct = direct ? openDirectFacts(files[0]!, this.#fds[0]!, view[0]!) : undefined;
    this.writesDirect = this.#direct !== undefined;
    this.#sync = sync ? new OutputSync(this.#fds, view, sync) : undefined;
    const init: WorkerInit = {
      type: "init",
      ...setup,
      fds: this.#fds,
      ends,
      turn,
      direct: this.#direct,
    };
    for (let i = 0; i < count; i++) {
      const w = (threads ?? csvWorkerThreads()).take();
      w.on("message", (m: WorkerDone | WorkerError) => this.#receive(m, i));
      w.on("error", (err) => this.#fail(err));
      w.on("exit", (code) => {
        if (code !== 0) this.#fail(new Error(`CSV worker exited with code ${code}`));
      });
      w.postMessage(init);
      this.#workers.push(w);
      this.#inFlight.push(0);
    }
  }

  /** A recycled batch buffer if one is big enough, else a new one. */
  alloc(n: number): Uint8Array {
    const i = this.#free.findIndex((b) => b.byteLength >= n);
    const buffer =
      i >= 0 ? this.#free.splice(i, 1)[0]! : new ArrayBuffer(Math.max(n, BATCH_BUFFER_BYTES));
    return new Uint8Array(buffer, 0, n);
  }

  /** Sends a batch (its buffer is transferred, and comes back when done). */
  async submit(firstLine: number, bytes: Uint8Array, firstByte: number): Promise<void> {
    while (this.#submitted - this.#done >= this.#workers.length * 2) await this.#next();
    this.#check();
    const seq = this.#submitted++;
    const buffer = bytes.buffer as ArrayBuffer;
    const msg: WorkerBatch = {
      type: "batch",
      seq,
      firstLine,
      firstByte,
      buffer,
      offset: bytes.byteOffset,
      length: bytes.byteLength,
    };
    const slot = leastBusy(this.#inFlight, seq);
    this.#inFlight[slot]!++;
    this.#workers[slot]!.postMessage(msg, [buffer]);
  }

  /** Waits until every submitted batch is written. */
  async drain(): Promise<void> {
    while (this.#done < this.#submitted) await this.#next();
    this.#check();
  }

  /**
   * After a drain: the idle workers go back to the threads they were taken from (the key check
   * runs on them), or are stopped if they were not given any; the files are closed.
   */
  async release(): Promise<void> {
    this.#check();
    for (const w of this.#workers.splice(0)) {
      // By event name: a Worker's own newListener/removeListener listeners (which start and
      // stop its message port) must stay, or the next taker never hears from it.
      for (const event of ["message", "error", "exit"]) w.removeAllListeners(event);
      if (this.#threads) this.#threads.give(w);
      else await w.terminate();
    }
    // The facts' last partial block, which no batch could write whole.
    if (this.#direct) finishDirectFacts(this.#direct, this.#fds[0]!, this.#ends[0]!);
    this.#closeDirect();
    await this.#sync?.settle();
    for (const fd of this.#fds.splice(0)) closeSync(fd);
  }

  #closeDirect(): void {
    if (this.#direct) closeSync(this.#direct.fd);
    this.#direct = undefined;
  }

  /** Stops the workers (a worker waiting for its turn is released first). */
  async close(): Promise<void> {
    this.#failure ??= new Error("pool closed");
    Atomics.store(this.#turn, 1, 1);
    Atomics.notify(this.#turn, 0);
    await Promise.all(this.#workers.map((w) => w.terminate()));
    this.#closeDirect();
    await this.#sync?.settle();
    for (const fd of this.#fds.splice(0)) closeSync(fd);
  }

  #receive(m: WorkerDone | WorkerError, slot: number): void {
    if (m.type === "error") {
      // A batch aborted by another's failure: that failure is reported by its own worker (or
      // was set here), in whatever order the workers' messages arrive. Taking the abort for the
      // failure lost the reason (an ENCODING_INVALID became an unexpected error).
      if (m.kind !== "aborted") this.#fail(new WorkerBatchError(m.kind, m.message));
      return;
    }
    this.#done++;
    this.#inFlight[slot]!--;
    this.#sync?.poke();
    this.#free.push(m.buffer);
    try {
      this.onCounts(m.counts);
    } catch (err) {
      this.#fail(err as Error);
    }
    this.#wakeUp();
  }

  #fail(err: Error): void {
    // The first error wins.
    this.#failure ??= err;
    Atomics.store(this.#turn, 1, 1);
    Atomics.notify(this.#turn, 0);
    this.#wakeUp();
  }

  #wakeUp(): void {
    this.#waiter.wake();
  }

  #next(): Promise<void> {
    this.#check();
    return this.#waiter.wait();
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
  }
}

/**
 * The worker a batch goes to: the one with the fewest batches in flight (ties taken in turn from
 * `seq`), so a thread still starting, or slowed, gets less and no thread sits idle while the
 * other has a queue. Any assignment keeps the output in file order (workers reserve their
 * output ranges in batch order) and cannot deadlock: each worker receives its batches in
 * increasing order, so the oldest unwritten batch is never queued behind a wait for a later one.
 */
export function leastBusy(inFlight: readonly number[], seq: number): number {
  let best = seq % inFlight.length;
  for (let k = 1; k < inFlight.length; k++) {
    const i = (seq + k) % inFlight.length;
    if (inFlight[i]! < inFlight[best]!) best = i;
  }
  return best;
}
