import iconv from "iconv-lite";
import type { WarmThreads } from "tidemark/kit";
import type { KeyIndexWriter } from "../../publish/artifacts/key-index.ts";
import type { LineSink } from "../../publish/artifacts/line-sink.ts";
import { createLineTables } from "../../publish/artifacts/line-table.ts";
import { GateFailure, type HeaderMap } from "../../quality/emit/schema.ts";
import { CrLineEnds } from "../extract/cr-line-ends.ts";
import {
  CsvRecordParser,
  CsvSyntaxError,
  LoneCrError,
  MAX_RECORD_CHARS,
  MixedLineEndError,
} from "../extract/csv-records.ts";
import {
  type CsvOptions,
  type CsvReadInfo,
  encodingFailure,
  loneCrFailure,
  mapCsvHeader,
} from "../extract/read-csv.ts";
import type { ByteSource } from "../input/byte-source.ts";
import {
  countLf,
  EncodingError,
  encodingFromBom,
  type FilePosition,
  isUtf8,
  utf8ErrorIn,
} from "../input/text-decoder.ts";
import type { BatchOutput, BatchSetup } from "./csv-batch.ts";
import {
  type BatchRunner,
  CsvWorkerPool,
  InlineBatchRunner,
  WorkerBatchError,
} from "./csv-worker-pool.ts";
import { RecordSplitter } from "./record-splitter.ts";
import { tailSlices } from "./tail-slices.ts";

/** Extra inputs of the batch reader: the real sinks and the emitter's labels. */
export interface BatchedCsvOptions extends CsvOptions {
  /** Worker threads; 0 processes the batches on this thread. */
  workers: number;
  /** The file's size, when known: its last megabytes go to the workers in smaller batches. */
  size?: number;
  /** The outputs are synced to disk as they grow (worker threads only; see CsvWorkerPool). */
  syncWhileWriting?: boolean;
  /** The facts are written with direct I/O where the file system takes it (see direct-facts.ts). */
  directWrites?: boolean;
  /** CSV worker threads started ahead of the parse, taken before any new one is started. */
  threads?: WarmThreads;
  runId: string;
  supplier: string;
  multiCategory: boolean;
  checkSurrogates: boolean;
  buckets: number;
  facts: LineSink;
  bad: LineSink;
  keys: KeyIndexWriter;
}

/** Facts written between two background syncs of the outputs. */
const SYNC_EVERY_BYTES = 64 << 20;

/** Decodes the header record, which starts at `at` in the file. */
function decode(bytes: Uint8Array, encoding: string, at: FilePosition & { byte: number }) {
  try {
    return isUtf8(encoding)
      ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
      : iconv.decode(Buffer.from(bytes), encoding, { stripBOM: false });
  } catch (err) {
    if (!isUtf8(encoding)) throw new EncodingError(encoding, err, at);
    throw utf8ErrorIn(bytes, at, err);
  }
}

/** End of the first record starting at `from` (just past its LF), or bytes.length. */
function recordEnd(bytes: Uint8Array, from: number, quote: number): number {
  let q = 0;
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === quote) q ^= 1;
    else if (c === 10 && q === 0) return i + 1;
  }
  return bytes.length;
}

/**
 * Where batches are emitted once the header is known: inline (small files) or on worker
 * threads that write into the sinks' files directly.
 */
function startRunner(o: BatchedCsvOptions, h: HeaderMap, encoding: string): BatchRunner {
  const setup: BatchSetup = {
    schema: o.schema,
    header: h,
    runId: o.runId,
    supplier: o.supplier,
    multiCategory: o.multiCategory,
    checkSurrogates: o.checkSurrogates,
    encoding,
    delimiter: o.delimiter,
    quote: o.quote,
    buckets: o.buckets,
  };
  o.emitter.begin(h, undefined, true);
  const merge = (c: BatchOutput["counts"]) => o.emitter.merge(c.totals, c.byCategory, c.byReason);
  if (o.workers === 0) {
    return new InlineBatchRunner(setup, (r) => {
      o.facts.writeBytes(r.facts);
      o.bad.writeBytes(r.bad);
      r.keys.forEach((bytes, b) => {
        if (bytes.length > 0) o.keys.addBytes(b, bytes);
      });
      merge(r.counts);
    });
  }
  // Workers write into these files directly, after what is there: nothing may sit in our
  // buffers. Our later writes append (the sinks are O_APPEND).
  o.facts.flush();
  o.bad.flush();
  o.keys.flush();
  const files = [o.facts.path, o.bad.path, ...o.keys.paths];
  if (files.some((f) => f === undefined) || o.keys.paths.length !== o.buckets) {
    throw new Error("CSV workers need sinks that opened their own files");
  }
  // The workers also write each bucket's line table, for the key check (not synced while they
  // grow: the check syncs those the state keeps, and deletes the others).
  const synced = files.length;
  files.push(...createLineTables(o.keys.paths));
  return new CsvWorkerPool(o.workers, setup, files as string[], merge, {
    threads: o.threads,
    sync: o.syncWhileWriting ? { every: SYNC_EVERY_BYTES, files: synced } : undefined,
    direct: o.directWrites === true,
  });
}

/** A read error as the gate's failure (positions counted from the file's first byte). */
function csvReadFailure(err: unknown, o: BatchedCsvOptions, bomBytes: number): unknown {
  // The splitter counts bytes after the BOM it never saw.
  if (err instanceof LoneCrError) {
    const mixed = err instanceof MixedLineEndError;
    return loneCrFailure(o.file, err.line, err.offset + bomBytes, mixed);
  }
  if (err instanceof WorkerBatchError) {
    if (err.kind === "encoding") return encodingFailure(o.file, err.message, o.encoding);
    if (err.kind === "syntax") return new GateFailure("FILE_UNREADABLE", err.message);
  }
  if (err instanceof EncodingError) return encodingFailure(o.file, err.message, o.encoding);
  if (err instanceof CsvSyntaxError) return new GateFailure("FILE_UNREADABLE", err.message);
  return err;
}

/**
 * The CSV extractor for ASCII-compatible encodings (same output as readCsv, byte for byte): this
 * thread hashes, cuts the bytes at record boundaries and parses the header (gate); batches are
 * emitted by CsvBatchProcessor on worker threads (large files) or inline; results are written
 * in input order.
 */
export async function readCsvBatched(
  source: ByteSource,
  o: BatchedCsvOptions,
): Promise<CsvReadInfo> {
  const bom = encodingFromBom(source.head);
  const encoding = bom ?? (isUtf8(o.encoding) ? "utf-8" : o.encoding);
  const quote = o.quote.charCodeAt(0);
  // Batches take recycled memory from the runner once it exists (the header batch is fresh).
  const splitter = new RecordSplitter(
    o.delimiter,
    o.quote,
    (n) => pool?.alloc(n) ?? new Uint8Array(n),
  );
  let header: HeaderMap | undefined;
  let pool: BatchRunner | undefined;

  // `firstByte`: where the batch starts in the file (error positions).
  const handle = async (bytes: Uint8Array, firstLine: number, firstByte: number) => {
    let offset = 0;
    let line = firstLine;
    while (!header && offset < bytes.length) {
      const end = recordEnd(bytes, offset, quote);
      let fields: string[] | undefined;
      const parser = new CsvRecordParser(o.delimiter, o.quote, (f) => {
        fields ??= [...f];
      });
      parser.push(
        decode(bytes.subarray(offset, end), encoding, { line, byte: firstByte + offset }),
      );
      parser.end();
      line += countLf(bytes, offset, end);
      offset = end;
      if (fields) {
        header = mapCsvHeader(o, fields);
        pool = startRunner(o, header, encoding);
      }
    }
    if (!pool || offset >= bytes.length) return;
    await pool.submit(line, offset === 0 ? bytes : bytes.slice(offset), firstByte + offset);
  };

  let directWrites = false;
  let bytes = 0;
  // Bytes given to the splitter, counted from the file's first byte (the BOM it never sees).
  let fed = bom === "utf-8" ? 3 : 0;
  let first = true;
  // A classic-Mac file's record ends reach the splitter as LF.
  const lineEnds = new CrLineEnds(o.delimiter, o.quote);
  const feed = async (chunk: Uint8Array) => {
    const batch = splitter.push(chunk);
    fed += chunk.length;
    if (batch) {
      const start = fed - splitter.pendingBytes - batch.bytes.length;
      await handle(batch.bytes, batch.firstLine, start);
    }
  };
  try {
    for await (const raw of source.chunks) {
      o.signal?.throwIfAborted();
      const chunk = lineEnds.bytes(first && bom === "utf-8" ? raw.subarray(3) : raw);
      for (const piece of tailSlices(chunk, bytes, o.workers > 0 ? o.size : undefined)) {
        await feed(piece);
      }
      first = false;
      if (splitter.pendingBytes > MAX_RECORD_CHARS) {
        throw new GateFailure(
          "FILE_UNREADABLE",
          `no record end within ${MAX_RECORD_CHARS} bytes (unterminated quote?)`,
        );
      }
      bytes += raw.length;
      o.onChunk?.(bytes);
    }
    const lastEnd = lineEnds.end();
    if (lastEnd !== undefined) await feed(Uint8Array.of(lastEnd));
    const last = splitter.end();
    if (last) await handle(last.bytes, last.firstLine, fed - last.bytes.length);
    await pool?.drain();
    directWrites = pool?.writesDirect === true;
    await pool?.release();
  } catch (err) {
    throw csvReadFailure(err, o, bom === "utf-8" ? 3 : 0);
  } finally {
    await pool?.close();
  }
  if (!header) throw new GateFailure("HEADER_MISMATCH", "no header row (the file is blank)");
  return { encoding, directWrites };
}
