/**
 * Worker thread of the batch CSV reader: runs a CsvBatchProcessor on its batches and writes
 * the output into the run's files itself, in batch order: a shared counter says whose turn it
 * is to reserve the next byte range of every file (batch n after batch n-1); the writes into
 * the reserved ranges (pwrite) then run in parallel. Nothing big crosses threads and output
 * order is the input order. Only the counts go back to the main thread. Once the parse is done,
 * the same thread runs the key check's bucket groups (GroupTask), sparing the run two thread
 * starts; its parse buffers are let go at the first one.
 */
import { parentPort } from "node:worker_threads";
import { answerGroup, type GroupTask } from "../../publish/artifacts/key-diff-task.ts";
import { writeAllSync } from "../../publish/artifacts/line-sink.ts";
import type { RowEmitter } from "../../quality/emit/row-emitter.ts";
import { detachEarly } from "../detach-early.ts";
import { CsvSyntaxError } from "../extract/csv-records.ts";
import { EncodingError } from "../input/text-decoder.ts";
import { type BatchOutput, type BatchSetup, CsvBatchProcessor } from "./csv-batch.ts";
import { type DirectFacts, DirectFactsWriter } from "./direct-facts.ts";

// Each batch's buffer goes back by transfer (see detach-early.ts).
detachEarly();

/** Sent once, before any batch. */
export interface WorkerInit extends BatchSetup {
  type: "init";
  /**
   * Files to pwrite into: facts, bad, each key bucket, then each bucket's line table (same
   * order as `ends`).
   */
  fds: number[];
  /** Float64 per file: where the next reserved range starts (written only in turn). */
  ends: SharedArrayBuffer;
  /** Int32 [next batch to reserve, abort flag]. */
  turn: SharedArrayBuffer;
  /** The facts file's direct writes, when the file system takes them (see direct-facts.ts). */
  direct: DirectFacts | undefined;
}

/** One batch of whole records: `length` bytes at `offset` of a transferred buffer. */
export interface WorkerBatch {
  type: "batch";
  seq: number;
  firstLine: number;
  /** Offset of the batch's first byte in the file (for error positions). */
  firstByte: number;
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
  /** `aborted`: this batch stopped because another failed (that failure is reported too). */
  kind: "encoding" | "syntax" | "aborted" | "other";
  message: string;
}

/** The kind of a batch error, for the main thread's gate reason. */
export function errorKind(err: unknown): WorkerError["kind"] {
  if (err instanceof BatchAbortedError) return "aborted";
  if (err instanceof EncodingError) return "encoding";
  if (err instanceof CsvSyntaxError) return "syntax";
  return "other";
}

let init: WorkerInit | undefined;
/** This read's direct writer of the facts, if any. */
let directFacts: DirectFactsWriter | undefined;
/**
 * Two processors used in turn: a batch's output waits for its turn to be written while the
 * next batch is processed into the other's buffers, instead of the thread blocking idle.
 */
let processors: CsvBatchProcessor[] = [];
let processed = 0;
/** Processed batches whose turn to reserve has not come yet (at most two: one per processor). */
const pending: Array<{ msg: WorkerBatch; out: BatchOutput }> = [];
let waiting = false;

/** A batch stopped because another one failed first. */
class BatchAbortedError extends Error {
  constructor() {
    super("aborted: another batch failed");
  }
}

/** Blocks until it is batch seq's turn to reserve; throws if the read was aborted. */
function waitTurn(turn: Int32Array, seq: number): void {
  for (;;) {
    if (Atomics.load(turn, 1) !== 0) throw new BatchAbortedError();
    const current = Atomics.load(turn, 0);
    if (current === seq) return;
    Atomics.wait(turn, 0, current, 1000);
  }
}

/**
 * Reserves the batch's byte ranges in every file (its turn has come), then writes them. The
 * batch is reported done once all are written: its direct-written facts may still be on their
 * way to the disk when this returns.
 */
function write(turn: Int32Array, ends: Float64Array, msg: WorkerBatch, out: BatchOutput): void {
  const parts = [out.facts, out.bad, ...out.keys, ...out.tables];
  const at: number[] = [];
  // Plain reads and writes of `ends` are ordered by the Atomics on `turn` around them.
  for (let i = 0; i < parts.length; i++) {
    at.push(ends[i]!);
    ends[i] = ends[i]! + parts[i]!.length;
  }
  // The facts' carried block changes hands in turn too (direct writes: whole blocks only).
  const blocks = directFacts?.reserve(at[0]!, out.facts);
  Atomics.store(turn, 0, msg.seq + 1);
  Atomics.notify(turn, 0);
  for (let i = directFacts ? 1 : 0; i < parts.length; i++) {
    if (parts[i]!.length > 0) writeAllSync(init!.fds[i]!, parts[i]!, parts[i]!.length, at[i]);
  }
  const done: WorkerDone = { type: "done", seq: msg.seq, counts: out.counts, buffer: msg.buffer };
  const report = () => parentPort!.postMessage(done, [msg.buffer]);
  if (blocks) directFacts!.write(blocks, (err) => (err ? fail(turn, msg.seq, err) : report()));
  else report();
}

/** Stops the read: every waiting worker wakes up and aborts. */
function fail(turn: Int32Array, seq: number, err: unknown): void {
  Atomics.store(turn, 1, 1);
  Atomics.notify(turn, 0);
  pending.length = 0;
  const error: WorkerError = {
    type: "error",
    seq,
    kind: errorKind(err),
    message: (err as Error).message,
  };
  parentPort!.postMessage(error);
}

/** Atomics.waitAsync (Node 16+; TypeScript types it from lib es2024 only). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: Int32Array, i: number, v: number): { value: Promise<unknown> | string };
  }
).waitAsync;

/**
 * Writes the pending outputs whose turn has come. While more than `mayHold` are pending, waits
 * for the oldest's turn (blocking); otherwise, when it is not its turn yet, returns and wakes
 * up when the turn moves, so that the next batch is processed meanwhile.
 */
function flush(turn: Int32Array, ends: Float64Array, mayHold: number): void {
  while (pending.length > 0) {
    const { msg, out } = pending[0]!;
    if (Atomics.load(turn, 1) !== 0) throw new BatchAbortedError();
    const current = Atomics.load(turn, 0);
    if (current !== msg.seq) {
      if (pending.length > mayHold) {
        waitTurn(turn, msg.seq);
        continue;
      }
      if (!waiting) {
        waiting = true;
        const owner = init;
        void Promise.resolve(waitAsync(turn, 0, current).value).then(() => {
          // A wake-up from an earlier read of this thread (it may read again) is not ours.
          if (init !== owner) return;
          waiting = false;
          const head = pending[0];
          try {
            flush(turn, ends, processors.length);
          } catch (err) {
            if (head) fail(turn, head.msg.seq, err);
          }
        });
      }
      return;
    }
    pending.shift();
    write(turn, ends, msg, out);
  }
}

parentPort?.on("message", (msg: WorkerInit | WorkerBatch | GroupTask) => {
  if (msg.type === "group") {
    init = undefined;
    directFacts = undefined;
    processors = [];
    parentPort!.postMessage(answerGroup(msg));
    return;
  }
  if (msg.type === "init") {
    init = msg;
    directFacts = msg.direct ? new DirectFactsWriter(msg.direct, msg.fds[0]!) : undefined;
    waiting = false;
    pending.length = 0;
    processors = [new CsvBatchProcessor(msg), new CsvBatchProcessor(msg)];
    return;
  }
  const turn = new Int32Array(init!.turn);
  const ends = new Float64Array(init!.ends);
  try {
    // A processor's buffers are reused by its next batch: its pending output goes out first.
    flush(turn, ends, processors.length - 1);
    const processor = processors[processed++ % processors.length]!;
    const out = processor.process(
      new Uint8Array(msg.buffer, msg.offset, msg.length),
      msg.firstLine,
      msg.firstByte,
    );
    pending.push({ msg, out });
    flush(turn, ends, processors.length);
  } catch (err) {
    fail(turn, msg.seq, err);
  }
});
