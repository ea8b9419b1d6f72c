import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startWorkerThread } from "tidemark/kit";
import type { KeyIndexWriter } from "../../publish/artifacts/key-index.ts";
import type { LineSink } from "../../publish/artifacts/line-sink.ts";
import { GateFailure } from "../../quality/emit/schema.ts";
import type { ByteSource } from "../input/byte-source.ts";
import type { XlsxOptions, XlsxReadInfo } from "./read-xlsx.ts";
import type { XlsxIn, XlsxOut } from "./xlsx-worker.ts";

/** A young generation big enough for exceljs's per-row objects (see xlsx-worker.ts). */
const XLSX_WORKER_LIMITS = { maxYoungGenerationSizeMb: 64 };

/** What readXlsxInWorker needs besides the in-thread options. */
type WorkerReadOptions = XlsxOptions & {
  runId: string;
  supplier: string;
  multiCategory: boolean;
  buckets: number;
  facts: LineSink;
  bad: LineSink;
  keys: KeyIndexWriter;
};

/**
 * readXlsx on a worker thread: streams the source's bytes to it chunk by chunk (waiting for
 * each acknowledgement, so memory stays bounded), merges its counts into `o.emitter`.
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
  o.facts.flush();
  o.bad.flush();
  o.keys.flush();
  const worker = startWorkerThread(import.meta.url, "xlsx-worker", XLSX_WORKER_LIMITS);
  let settle: ((m: XlsxOut | Error) => void) | undefined;
  const queue: Array<XlsxOut | Error> = [];
  const deliver = (m: XlsxOut | Error) => {
    if (settle) {
      const s = settle;
      settle = undefined;
      s(m);
    } else queue.push(m);
  };
  worker.on("message", deliver);
  worker.on("error", deliver);
  worker.on("exit", (code) => deliver(new Error(`XLSX worker exited with code ${code}`)));
  const next = () =>
    new Promise<XlsxOut | Error>((resolve) => {
      const m = queue.shift();
      if (m) resolve(m);
      else settle = resolve;
    });
  const fail = (m: XlsxOut | Error): never => {
    if (m instanceof Error) throw m;
    if (m.type === "error")
      throw m.gate ? new GateFailure(m.gate.reason, m.gate.detail) : new Error(m.message);
    throw new Error(`unexpected message from the XLSX worker: ${m.type}`);
  };
  try {
    const init: XlsxIn = {
      type: "init",
      schema: o.schema,
      categories: o.categories,
      runId: o.runId,
      supplier: o.supplier,
      multiCategory: o.multiCategory,
      factsFd: o.facts.fd,
      badFd: o.bad.fd,
      keyFds: o.keys.fds,
      buckets: o.buckets,
      spoolDir,
    };
    worker.postMessage(init);
    let done: Extract<XlsxOut, { type: "done" }> | undefined;
    const settleOn = (m: XlsxOut | Error): void => {
      if (m instanceof Error) fail(m);
      else if (m.type === "error") fail(m);
      else if (m.type === "done") done = m;
    };
    for await (const chunk of source.chunks) {
      o.signal?.throwIfAborted();
      // The reader may stop before the ZIP's trailing directory: the rest is only hashed.
      if (done) continue;
      // Chunks may be views on a reused buffer: send a copy (transferred).
      const bytes = new Uint8Array(chunk);
      worker.postMessage({ type: "chunk", bytes } satisfies XlsxIn, [bytes.buffer]);
      settleOn(await next());
    }
    if (!done) {
      worker.postMessage({ type: "end" } satisfies XlsxIn);
      while (!done) settleOn(await next());
    }
    const result = done as Extract<XlsxOut, { type: "done" }>;
    o.emitter.merge(result.counts.totals, result.counts.byCategory, result.counts.byReason);
    return result.info;
  } finally {
    worker.removeAllListeners("exit");
    await worker.terminate();
  }
}
