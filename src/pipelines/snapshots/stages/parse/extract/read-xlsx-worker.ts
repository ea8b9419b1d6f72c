import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { WarmThreads } from "tidemark/kit";
import type { KeyIndexWriter } from "../../publish/artifacts/key-index.ts";
import type { LineSink } from "../../publish/artifacts/line-sink.ts";
import { GateFailure } from "../../quality/emit/schema.ts";
import type { ByteSource } from "../input/byte-source.ts";
import type { XlsxOptions } from "./read-xlsx.ts";
import { zipProblem } from "./xlsx-cells.ts";
import { forEachRow } from "./xlsx-row-batch.ts";
import { SheetCollector, type XlsxReadInfo } from "./xlsx-sheets.ts";
import type { XlsxIn, XlsxOut } from "./xlsx-worker.ts";

/** A young generation big enough for exceljs's per-row objects (see xlsx-worker.ts). */
const XLSX_WORKER_LIMITS = { maxYoungGenerationSizeMb: 48 };

/** The XLSX reader's thread, to start ahead of a parse (see WarmThreads) or when reading. */
export function xlsxWorkerThreads(): WarmThreads {
  return new WarmThreads(import.meta.url, "xlsx-worker", XLSX_WORKER_LIMITS);
}

/** What readXlsxInWorker is given besides the in-thread options (rows are emitted here). */
type WorkerReadOptions = XlsxOptions & {
  runId: string;
  supplier: string;
  multiCategory: boolean;
  buckets: number;
  facts: LineSink;
  bad: LineSink;
  keys: KeyIndexWriter;
  /** The reader's thread if it was started ahead (else one is started here). */
  threads?: WarmThreads;
};

/**
 * readXlsx with the workbook read on a worker thread and the rows emitted on this one: streams
 * the source's bytes to the worker chunk by chunk (waiting for each acknowledgement, so memory
 * stays bounded) and emits the row batches it posts back into `o.emitter`.
 */
export async function readXlsxInWorker(
  source: ByteSource,
  o: WorkerReadOptions,
): Promise<XlsxReadInfo> {
  // The worker's spooled worksheets go here; removed by this thread, after the worker is
  // gone, so a worker terminated mid-read (stop, abort, failure) leaves nothing behind.
  const spoolDir = await mkdtemp(path.join(tmpdir(), "tidemark-xlsx-"));
  try {
    return await readOnWorker(source, o, spoolDir);
  } finally {
    await rm(spoolDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function readOnWorker(
  source: ByteSource,
  o: WorkerReadOptions,
  spoolDir: string,
): Promise<XlsxReadInfo> {
  const worker = (o.threads ?? xlsxWorkerThreads()).take();
  const link = new WorkerLink(worker, new SheetCollector(o));
  try {
    worker.postMessage({ type: "init", categories: o.categories, spoolDir } satisfies XlsxIn);
    for await (const chunk of source.chunks) {
      o.signal?.throwIfAborted();
      link.throwIfFailed();
      // The reader may stop before the ZIP's trailing directory: the rest is only hashed.
      if (link.settled) continue;
      // Chunks may be views on a reused buffer: send a copy (transferred).
      const bytes = new Uint8Array(chunk);
      worker.postMessage({ type: "chunk", bytes } satisfies XlsxIn, [bytes.buffer]);
      await link.wanted();
    }
    if (!link.settled) worker.postMessage({ type: "end" } satisfies XlsxIn);
    return await link.result;
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}

/**
 * The worker's messages: acknowledgements wake the input loop; sheets and row batches go to
 * the collector as they arrive (each batch's credit returned once emitted); the read settles
 * on "done" (with the collector's final gates), on an error, or on the worker's exit.
 */
class WorkerLink {
  settled = false;
  readonly result: Promise<XlsxReadInfo>;
  #resolve!: (info: XlsxReadInfo) => void;
  #reject!: (err: unknown) => void;
  #failure: { error: unknown } | undefined;
  #waiter: (() => void) | undefined;
  #acked = false;

  constructor(
    private readonly worker: Worker,
    private readonly sheets: SheetCollector,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Awaited only once the input is sent: a failure before must not be an unhandled rejection.
    this.result.catch(() => {});
    worker.on("message", (m: XlsxOut) => this.#take(m));
    worker.on("error", (err) => this.#fail(err));
    worker.on("exit", (code) => this.#fail(new Error(`XLSX worker exited with code ${code}`)));
  }

  /** Throws the read's failure, if it failed. */
  throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }

  /** Resolves when the worker wants the next chunk or the read settled; throws its failure. */
  async wanted(): Promise<void> {
    if (!this.#acked && !this.settled) await new Promise<void>((r) => (this.#waiter = r));
    this.#acked = false;
    this.throwIfFailed();
  }

  #take(m: XlsxOut): void {
    if (this.settled) return;
    try {
      switch (m.type) {
        case "ack":
          this.#acked = true;
          this.#wake();
          return;
        case "sheet":
          this.sheets.startSheet(m.name, m.state);
          return;
        case "rows":
          forEachRow(m.batch, (cells, n) => this.sheets.row(cells, n));
          this.worker.postMessage({ type: "credit" } satisfies XlsxIn);
          return;
        case "sheet-end":
          this.sheets.endSheet();
          return;
        case "done": {
          const info = this.sheets.finish();
          this.settled = true;
          this.#resolve(info);
          this.#wake();
          return;
        }
        default:
          throw new GateFailure("FILE_UNREADABLE", `not a readable workbook: ${zipProblem(m)}`);
      }
    } catch (err) {
      this.#fail(err);
    }
  }

  #fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#failure = { error };
    this.#reject(error);
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
