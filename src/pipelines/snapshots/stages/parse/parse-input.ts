import path from "node:path";
import type { Readable } from "node:stream";
import type { WarmThreads } from "tidemark/kit";
import { crashPoint } from "../ingest/crash-hook.ts";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import { RUN_FILES } from "../intake/layout/tree.ts";
import { bucketsFor, KeyIndexWriter } from "../publish/artifacts/key-index.ts";
import { LineSink } from "../publish/artifacts/line-sink.ts";
import { type SnapshotStorage, StorageNotFoundError } from "../publish/storage/snapshot-storage.ts";
import { RowEmitter } from "../quality/emit/row-emitter.ts";
import { compileSchema, GateFailure } from "../quality/emit/schema.ts";
import { readCsvBatched } from "./byte-csv/read-csv-batched.ts";
import { isAsciiCompatible } from "./byte-csv/record-splitter.ts";
import { readCsv } from "./extract/read-csv.ts";
import { readXlsx, type XlsxReadInfo } from "./extract/read-xlsx.ts";
import { readXlsxInWorker } from "./extract/read-xlsx-worker.ts";
import { withoutPretenuring } from "./extract/without-pretenuring.ts";
import { openByteSource, SourceReadError, toReadable } from "./input/byte-source.ts";
import { SNIFF_BYTES, sniffFormat } from "./input/sniff-format.ts";
import { encodingFromBom, isUtf8 } from "./input/text-decoder.ts";

/** Local folder of the key index while a run is working. */
export const WORK_KEYS_DIR = ".keys";

/** CSV files from this size are emitted on worker threads (below, thread start-up dominates). */
export const PARALLEL_MIN_BYTES = 4 << 20;

/** XLSX files from this size are read on a worker thread (see xlsx-worker.ts). */
export const XLSX_WORKER_MIN_BYTES = 1 << 20;

/** What parsing a file produced (artifacts are in the work dir). */
export interface Parsed {
  emitter: RowEmitter;
  format: "csv" | "xlsx";
  encoding: string | null;
  bytes: number;
  buckets: number;
  multiCategory: boolean;
  sheets: XlsxReadInfo | null;
  /** The facts were written with direct I/O (a large CSV file on fs storage, fsync on). */
  directWrites: boolean;
}

/** Everything parseInput needs. */
export interface ParseRequest {
  storage: SnapshotStorage;
  key: string;
  /** SHA-256 computed at selection; the parsed bytes must hash to the same. */
  sha256: string;
  cfg: SupplierConfig;
  workDir: string;
  runId: string;
  supplier: string;
  signal?: AbortSignal;
  /** Worker threads for large CSV files (0: parse on the main thread). */
  workers: number;
  /** Their facts written with direct I/O when synced anyway (default true). */
  directIo?: boolean;
  /** Worker threads started ahead of the parse (taken before any new one is started). */
  threads?: { csv: WarmThreads; xlsx: WarmThreads };
  /** Override of PARALLEL_MIN_BYTES (tests). */
  parallelMinBytes?: number;
  /** Tests: read CSV with the plain text path instead of the byte-level batch path. */
  textPath?: boolean;
}

type Input = { chunks: AsyncIterable<Uint8Array>; close(): void };
type ByteSource = Awaited<ReturnType<typeof openByteSource>>;

/** The file's size and its bytes, or the gate's FILE_MISSING / FILE_EMPTY / FILE_UNREADABLE. */
async function openInput(r: ParseRequest): Promise<{ size: number; input: Input }> {
  const stat = await r.storage.stat(r.key);
  if (!stat) throw new GateFailure("FILE_MISSING", `${r.key} is gone`);
  if (stat.size === 0) throw new GateFailure("FILE_EMPTY", `${r.key} has 0 bytes`);
  try {
    if (r.storage.openChunks) return { size: stat.size, input: await r.storage.openChunks(r.key) };
    const stream: Readable = await r.storage.openRead(r.key);
    return { size: stat.size, input: { chunks: stream, close: () => stream.destroy() } };
  } catch (err) {
    if (err instanceof StorageNotFoundError)
      throw new GateFailure("FILE_MISSING", `${r.key} is gone`);
    throw new GateFailure("FILE_UNREADABLE", (err as Error).message);
  }
}

/**
 * Gate and extraction: the file must exist, be non-empty, readable, of the configured
 * format, with the required header; then every row is emitted to facts/bad and the key index.
 * Gate failures throw GateFailure; the partial artifacts stay in the work dir for diagnosis.
 */
export async function parseInput(r: ParseRequest): Promise<Parsed> {
  const { size, input } = await openInput(r);
  const facts = new LineSink(path.join(r.workDir, RUN_FILES.facts));
  const bad = new LineSink(path.join(r.workDir, RUN_FILES.bad));
  let keys: KeyIndexWriter | undefined;
  try {
    const source = await openByteSource(input.chunks, SNIFF_BYTES, input.close).catch(
      (err: unknown) => {
        throw new GateFailure("FILE_UNREADABLE", (err as Error).message);
      },
    );
    if (source.head.length === 0) throw new GateFailure("FILE_EMPTY", `${r.key} has 0 bytes`);
    const format = checkFormat(r.cfg, sniffFormat(source.head));
    const multiCategory = r.cfg.categories !== undefined;
    const buckets = bucketsFor(size, format);
    keys = new KeyIndexWriter(path.join(r.workDir, WORK_KEYS_DIR), buckets);
    const schema = compileSchema(r.cfg);
    const emitter = new RowEmitter(schema, {
      runId: r.runId,
      supplier: r.supplier,
      multiCategory,
      checkSurrogates: format === "xlsx" || !isUtf8(r.cfg.encoding),
      facts,
      bad,
      keys,
    });
    const sinks = { facts, bad, keys, schema, emitter, buckets, multiCategory };
    const { encoding, sheets, directWrites } = await extractRows(r, source, {
      format,
      size,
      ...sinks,
    });
    const digest = source.digest();
    if (digest.sha256 !== r.sha256) {
      throw new GateFailure(
        "FILE_CHANGED_DURING_READ",
        `SHA-256 at selection ${r.sha256.slice(0, 12)}…, while parsing ${digest.sha256.slice(0, 12)}…`,
      );
    }
    return {
      emitter,
      format,
      encoding,
      bytes: digest.bytes,
      buckets,
      multiCategory,
      sheets,
      directWrites: directWrites === true,
    };
  } finally {
    input.close();
    facts.close(false);
    bad.close(false);
    keys?.close();
  }
}

/** Where extracted rows go, and what the file is. */
interface Extraction {
  format: "csv" | "xlsx";
  size: number;
  facts: LineSink;
  bad: LineSink;
  keys: KeyIndexWriter;
  schema: ReturnType<typeof compileSchema>;
  emitter: RowEmitter;
  buckets: number;
  multiCategory: boolean;
}

/**
 * Emits every row with the reader the file needs: CSV in byte batches (on worker threads when
 * large) or as text, XLSX on a worker thread when large or in process. A read error is the
 * gate's FILE_UNREADABLE.
 */
async function extractRows(
  r: ParseRequest,
  source: ByteSource,
  x: Extraction,
): Promise<{ encoding: string | null; sheets: XlsxReadInfo | null; directWrites?: boolean }> {
  const { schema, emitter, multiCategory, buckets, facts, bad, keys } = x;
  let first = true;
  const hook = () => {
    if (first) crashPoint("mid-parse");
    first = false;
  };
  try {
    const csv = {
      file: r.key,
      encoding: r.cfg.encoding,
      delimiter: r.cfg.delimiter,
      quote: r.cfg.quote,
      schema,
      emitter,
      signal: r.signal,
      onChunk: hook,
    };
    const batched =
      !r.textPath && isAsciiCompatible(encodingFromBom(source.head) ?? r.cfg.encoding);
    const threads = x.size >= (r.parallelMinBytes ?? PARALLEL_MIN_BYTES) ? r.workers : 0;
    if (x.format === "csv" && batched) {
      const info = await readCsvBatched(source, {
        ...csv,
        workers: threads,
        size: x.size,
        syncWhileWriting: r.storage.syncsWorkFiles === true,
        directWrites: r.storage.syncsWorkFiles === true && r.directIo !== false,
        threads: r.threads?.csv,
        runId: r.runId,
        supplier: r.supplier,
        multiCategory,
        checkSurrogates: !isUtf8(r.cfg.encoding),
        buckets,
        facts,
        bad,
        keys,
      });
      return { encoding: info.encoding, sheets: null, directWrites: info.directWrites };
    }
    if (x.format === "csv")
      return { encoding: (await readCsv(source, csv)).encoding, sheets: null };
    const xlsx = { categories: r.cfg.categories, schema, emitter, signal: r.signal };
    if (x.size >= (r.parallelMinBytes ?? XLSX_WORKER_MIN_BYTES) && r.workers > 0) {
      hook();
      const sheets = await withoutPretenuring(() =>
        readXlsxInWorker(source, {
          ...xlsx,
          threads: r.threads?.xlsx,
          runId: r.runId,
          supplier: r.supplier,
          multiCategory,
          buckets,
          facts,
          bad,
          keys,
        }),
      );
      return { encoding: null, sheets };
    }
    const read = () => readXlsx(toReadable(source), { ...xlsx, onSheet: hook });
    return { encoding: null, sheets: await withoutPretenuring(read) };
  } catch (err) {
    if (err instanceof SourceReadError) throw new GateFailure("FILE_UNREADABLE", err.message);
    throw err;
  }
}

function checkFormat(cfg: SupplierConfig, sniffed: ReturnType<typeof sniffFormat>): "csv" | "xlsx" {
  if (sniffed === "xls") {
    throw new GateFailure(
      "FORMAT_UNRECOGNIZED",
      "legacy .xls (BIFF) workbook; save it as .xlsx or CSV",
    );
  }
  if (sniffed === "binary") {
    throw new GateFailure(
      "FORMAT_UNRECOGNIZED",
      "binary content (NUL bytes), neither CSV nor XLSX",
    );
  }
  if (cfg.format === "csv" && sniffed !== "csv") {
    throw new GateFailure("FORMAT_UNRECOGNIZED", "expected CSV, found a ZIP/XLSX file");
  }
  if (cfg.format === "xlsx" && sniffed !== "xlsx") {
    throw new GateFailure("FORMAT_UNRECOGNIZED", "expected XLSX, found text");
  }
  if (cfg.categories?.from === "sheet" && sniffed !== "xlsx") {
    throw new GateFailure(
      "FORMAT_UNRECOGNIZED",
      "categories come from sheets but the file is text",
    );
  }
  return sniffed;
}
