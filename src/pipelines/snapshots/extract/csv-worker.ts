/**
 * Worker thread of the batch CSV reader: runs a CsvBatchProcessor on its batches and appends
 * the output to the run's files itself, in batch order: a shared counter says whose turn it is
 * (batch n writes after batch n-1), so nothing big crosses threads and output order is the
 * input order. Only the counts go back to the main thread.
 */
import { parentPort } from "node:worker_threads";
import { writeAllSync } from "../artifacts/line-sink.ts";
import type { RowEmitter } from "../emit/row-emitter.ts";
import { type BatchSetup, CsvBatchProcessor } from "./csv-batch.ts";
import { CsvSyntaxError } from "./csv-records.ts";
import { EncodingError } from "./text-decoder.ts";

/** Sent once, before any batch. */
export interface WorkerInit extends BatchSetup {
  type: "init";
  factsFd: number;
  badFd: number;
  keyFds: number[];
  /** Int32 [next batch to write, abort flag]. */
  turn: SharedArrayBuffer;
}

/** One batch of whole records: `length` bytes at `offset` of a transferred buffer. */
export interface WorkerBatch {
  type: "batch";
  seq: number;
  firstLine: number;
  buffer: ArrayBuffer;
  offset: number;
  length: number;
}

/** A batch is emitted and written; its buffer comes back for reuse. */
export interface WorkerDone {
  type: "done";
  seq: number;
  counts: ReturnType<RowEmitter["takeCounts"]>;
  buffer: ArrayBuffer;
}

/** A batch could not be read. */
export interface WorkerError {
  type: "error";
  seq: number;
  kind: "encoding" | "syntax" | "other";
  message: string;
}

/** The kind of a batch error, for the main thread's gate reason. */
export function errorKind(err: unknown): WorkerError["kind"] {
  if (err instanceof EncodingError) return "encoding";
  if (err instanceof CsvSyntaxError) return "syntax";
  return "other";
}

let init: WorkerInit | undefined;
let processor: CsvBatchProcessor | undefined;

/** Blocks until it is batch seq's turn to write; throws if the read was aborted. */
function waitTurn(turn: Int32Array, seq: number): void {
  for (;;) {
    if (Atomics.load(turn, 1) !== 0) throw new Error("aborted: another batch failed");
    const current = Atomics.load(turn, 0);
    if (current === seq) return;
    Atomics.wait(turn, 0, current, 1000);
  }
}

parentPort?.on("message", (msg: WorkerInit | WorkerBatch) => {
  if (msg.type === "init") {
    init = msg;
    processor = new CsvBatchProcessor(msg);
    return;
  }
  const turn = new Int32Array(init!.turn);
  try {
    const out = processor!.process(
      new Uint8Array(msg.buffer, msg.offset, msg.length),
      msg.firstLine,
    );
    waitTurn(turn, msg.seq);
    writeAllSync(init!.factsFd, out.facts);
    writeAllSync(init!.badFd, out.bad);
    out.keys.forEach((bytes, b) => {
      if (bytes.length > 0) writeAllSync(init!.keyFds[b]!, bytes);
    });
    Atomics.store(turn, 0, msg.seq + 1);
    Atomics.notify(turn, 0);
    const done: WorkerDone = { type: "done", seq: msg.seq, counts: out.counts, buffer: msg.buffer };
    parentPort!.postMessage(done, [msg.buffer]);
  } catch (err) {
    Atomics.store(turn, 1, 1);
    Atomics.notify(turn, 0);
    const error: WorkerError = {
      type: "error",
      seq: msg.seq,
      kind: errorKind(err),
      message: (err as Error).message,
    };
    parentPort!.postMessage(error);
  }
});
