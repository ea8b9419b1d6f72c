/**
 * Worker thread for XLSX files: exceljs creates many short-lived objects per row, and on the
 * main thread V8 promoted them and let the heap grow (~340 MB peak for 200k rows); here a
 * larger young generation keeps them out of the old generation. The main thread streams the
 * bytes in (one chunk at a time, acknowledged), the worker reads, emits and writes the run's
 * files itself, and returns counts and sheet information.
 */
import { Readable } from "node:stream";
import { parentPort } from "node:worker_threads";
import type { SupplierConfig } from "../../intake/config/supplier-config.ts";
import { KeyIndexWriter } from "../../publish/artifacts/key-index.ts";
import { LineSink } from "../../publish/artifacts/line-sink.ts";
import { RowEmitter } from "../../quality/emit/row-emitter.ts";
import { type CompiledSchema, GateFailure } from "../../quality/emit/schema.ts";
import { readXlsx, type XlsxReadInfo } from "./read-xlsx.ts";

/** Sent first. */
export interface XlsxInit {
  type: "init";
  schema: CompiledSchema;
  categories: SupplierConfig["categories"];
  runId: string;
  supplier: string;
  multiCategory: boolean;
  factsFd: number;
  badFd: number;
  keyFds: number[];
  buckets: number;
  /** Folder for spooled worksheets, owned (and removed) by the main thread. */
  spoolDir: string;
}

/** Messages to the worker. */
export type XlsxIn = XlsxInit | { type: "chunk"; bytes: Uint8Array } | { type: "end" };

/** Messages from the worker. */
export type XlsxOut =
  | { type: "ack" }
  | { type: "done"; info: XlsxReadInfo; counts: ReturnType<RowEmitter["takeCounts"]> }
  | { type: "error"; gate?: { reason: GateFailure["reason"]; detail: string }; message: string };

const post = (m: XlsxOut) => parentPort!.postMessage(m);
let input: Readable | undefined;
let waiting = false;

async function run(init: XlsxInit): Promise<void> {
  const facts = new LineSink(init.factsFd);
  const bad = new LineSink(init.badFd);
  const keys = new KeyIndexWriter(init.keyFds, init.buckets);
  const emitter = new RowEmitter(init.schema, {
    runId: init.runId,
    supplier: init.supplier,
    multiCategory: init.multiCategory,
    checkSurrogates: true,
    facts,
    bad,
    keys,
  });
  try {
    const info = await readXlsx(input!, {
      categories: init.categories,
      schema: init.schema,
      emitter,
      spoolDir: init.spoolDir,
    });
    facts.close();
    bad.close();
    keys.close();
    post({ type: "done", info, counts: emitter.takeCounts() });
  } catch (err) {
    const gate =
      err instanceof GateFailure ? { reason: err.reason, detail: err.detail } : undefined;
    post({ type: "error", gate, message: (err as Error).message });
  }
}

parentPort?.on("message", (msg: XlsxIn) => {
  if (msg.type === "init") {
    // Acknowledge a chunk once exceljs asks for more: the main thread sends the next only then.
    input = new Readable({
      read() {
        if (waiting) {
          waiting = false;
          post({ type: "ack" });
        }
      },
    });
    void run(msg);
  } else if (msg.type === "chunk") {
    waiting = true;
    if (input!.push(Buffer.from(msg.bytes.buffer, msg.bytes.byteOffset, msg.bytes.byteLength))) {
      waiting = false;
      post({ type: "ack" });
    }
  } else {
    input!.push(null);
  }
});
