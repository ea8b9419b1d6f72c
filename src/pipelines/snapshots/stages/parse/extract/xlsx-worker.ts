/**
 * Worker thread for XLSX files: reads the workbook with exceljs and posts its rows in batches;
 * the main thread emits them (canonical JSON, SHA-256, writes), so reading and emitting run
 * on two cores. exceljs creates many short-lived objects per row: a larger young generation
 * here keeps them out of the old generation (on the main thread the heap grew to ~340 MB for
 * 200k rows). The main thread streams the bytes in (one chunk at a time, acknowledged) and
 * grants credit for each batch it has emitted, so neither side runs far ahead.
 */
import { Readable } from "node:stream";
import { parentPort } from "node:worker_threads";
import type ExcelJS from "exceljs";
import type { SupplierConfig } from "../../intake/config/supplier-config.ts";
import { READER_OPTIONS } from "./xlsx-cells.ts";
import { type RowBatch, RowBatchBuilder } from "./xlsx-row-batch.ts";
import { planSheet } from "./xlsx-sheets.ts";
import { openWorkbookReader } from "./xlsx-workbook-reader.ts";

/** Sent first. */
export interface XlsxInit {
  type: "init";
  categories: SupplierConfig["categories"];
  /** Folder for spooled worksheets, owned (and removed) by the main thread. */
  spoolDir: string;
}

/** Messages to the worker: the input's bytes, and credit for each emitted batch. */
export type XlsxIn =
  | XlsxInit
  | { type: "chunk"; bytes: Uint8Array }
  | { type: "end" }
  | { type: "credit" };

/** Messages from the worker. */
export type XlsxOut =
  | { type: "ack" }
  | { type: "sheet"; name: string | undefined; state: string | undefined }
  | { type: "rows"; batch: RowBatch }
  | { type: "sheet-end" }
  | { type: "done" }
  | { type: "error"; message: string };

/** Rows per batch, and batches posted but not yet emitted: bounds the memory between threads. */
const BATCH_ROWS = 2000;
const MAX_IN_FLIGHT = 4;
/** Input bytes buffered ahead of exceljs. */
const INPUT_AHEAD = 4 << 20;

interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name?: string;
  state?: string;
}

const post = (m: XlsxOut) => parentPort!.postMessage(m);
let input: Readable | undefined;
let waiting = false;
let inFlight = 0;
let wake: (() => void) | undefined;

async function send(rows: RowBatchBuilder): Promise<void> {
  const { batch, transfer } = rows.take();
  parentPort!.postMessage({ type: "rows", batch } satisfies XlsxOut, transfer);
  inFlight++;
  while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => (wake = r));
}

async function run(init: XlsxInit): Promise<void> {
  try {
    const reader = await openWorkbookReader(input!, READER_OPTIONS, init.spoolDir);
    let worksheets = 0;
    let readOne = false;
    for await (const raw of reader) {
      const ws = raw as unknown as SheetReader;
      worksheets++;
      post({ type: "sheet", name: ws.name, state: ws.state });
      const name = ws.name ?? `Sheet${worksheets}`;
      const plan = planSheet(init.categories, name, ws.state, readOne);
      const read = plan.skip === undefined && !plan.unexpected;
      const rows = new RowBatchBuilder();
      for await (const row of ws) {
        // A skipped sheet is drained: the zip entry must be consumed before the next one.
        if (!read) continue;
        rows.add(row.values as unknown[], row.number);
        if (rows.rows >= BATCH_ROWS) {
          readOne = true;
          await send(rows);
        }
      }
      if (rows.rows > 0) {
        readOne = true;
        await send(rows);
      }
      post({ type: "sheet-end" });
    }
    post({ type: "done" });
  } catch (err) {
    post({ type: "error", message: (err as Error).message });
  }
}

parentPort?.on("message", (msg: XlsxIn) => {
  if (msg.type === "init") {
    // Acknowledge a chunk once exceljs asks for more: the main thread sends the next only then.
    // The buffer holds a few chunks, so exceljs does not wait for a round trip to the main
    // thread (which may be emitting a batch) each time it drains a chunk.
    input = new Readable({
      highWaterMark: INPUT_AHEAD,
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
  } else if (msg.type === "credit") {
    inFlight--;
    const w = wake;
    wake = undefined;
    w?.();
  } else {
    input!.push(null);
  }
});
