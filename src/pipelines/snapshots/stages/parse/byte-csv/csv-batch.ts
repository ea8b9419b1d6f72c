import { isUtf8 } from "node:buffer";
import iconv from "iconv-lite";
import { GrowableBytes, MemoryKeyIndex } from "../../publish/artifacts/memory-sinks.ts";
import { RowEmitter } from "../../quality/emit/row-emitter.ts";
import type { CompiledSchema, HeaderMap } from "../../quality/emit/schema.ts";
import { CsvRecordParser } from "../extract/csv-records.ts";
import { isUtf8 as isUtf8Name, utf8ErrorIn } from "../input/text-decoder.ts";
import { ByteRowEmitter } from "./byte-emitter.ts";
import { scanRecords } from "./csv-bytes.ts";
import { RowIdBatch } from "./row-ids/row-id-batch.ts";

/** Everything a batch processor needs (sent to each worker once). */
export interface BatchSetup {
  schema: CompiledSchema;
  header: HeaderMap;
  runId: string;
  supplier: string;
  multiCategory: boolean;
  checkSurrogates: boolean;
  encoding: string;
  delimiter: string;
  quote: string;
  buckets: number;
}

/** What one batch produced, encoded; the byte views are valid until the next batch. */
export interface BatchOutput {
  facts: Uint8Array;
  bad: Uint8Array;
  /** Key-index lines per bucket. */
  keys: Uint8Array[];
  /** Each bucket's line table (line-table.ts), for its lines in `keys`. */
  tables: Uint8Array[];
  counts: ReturnType<RowEmitter["takeCounts"]>;
}

/**
 * Turns a batch of whole CSV records (bytes) into facts, bad lines, key-index lines and counts:
 * clean rows through the byte-level emitter, every other record re-read as text and given to
 * RowEmitter. Runs in a worker thread or inline.
 */
export class CsvBatchProcessor {
  /** Row ids hashed per batch, over the facts buffer (undefined without WebAssembly SIMD). */
  readonly #ids = RowIdBatch.create(4 << 20);
  readonly #facts = this.#ids?.facts ?? new GrowableBytes(4 << 20);
  readonly #bad = new GrowableBytes();
  readonly #keys: MemoryKeyIndex;
  readonly #rows: RowEmitter;
  readonly #fast: ByteRowEmitter;
  readonly #parser: CsvRecordParser;
  readonly #utf8: boolean;

  constructor(readonly setup: BatchSetup) {
    this.#keys = new MemoryKeyIndex(setup.buckets);
    this.#rows = new RowEmitter(setup.schema, {
      runId: setup.runId,
      supplier: setup.supplier,
      multiCategory: setup.multiCategory,
      checkSurrogates: setup.checkSurrogates,
      facts: this.#facts,
      bad: this.#bad,
      keys: this.#keys,
    });
    this.#rows.begin(setup.header, undefined, true);
    this.#fast = new ByteRowEmitter(
      setup.schema,
      setup.header,
      setup,
      this.#rows,
      this.#facts,
      this.#keys,
      this.#ids,
    );
    this.#parser = new CsvRecordParser(setup.delimiter, setup.quote, (fields, line, malformed) =>
      this.#rows.row(fields, line, malformed),
    );
    this.#utf8 = isUtf8Name(setup.encoding);
  }

  /**
   * Processes one batch, which starts at line `firstLine` and byte `firstByte` of the file;
   * throws EncodingError (naming where) or CsvSyntaxError for an unreadable batch.
   */
  process(bytes: Uint8Array, firstLine: number, firstByte: number): BatchOutput {
    let buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.#utf8) {
      if (!isUtf8(buf)) throw utf8ErrorIn(buf, { line: firstLine, byte: firstByte });
    } else {
      // Legacy encodings are transcoded once; the fast path then works on UTF-8 like always.
      buf = Buffer.from(iconv.decode(buf, this.setup.encoding, { stripBOM: false }), "utf8");
    }
    try {
      scanRecords(buf, this.setup.delimiter, this.setup.quote, firstLine, (r) => {
        if (this.#fast.tryRow(r)) return;
        this.#parser.setLine(r.line);
        this.#parser.push(buf.toString("utf8", r.start, r.end));
        this.#parser.end();
      });
      this.#fast.finish();
    } catch (err) {
      // Nothing of a batch that failed half way is left for the next one.
      this.#fast.discard();
      this.#take();
      throw err;
    }
    return this.#take();
  }

  /** The output so far, and the buffers start over. */
  #take(): BatchOutput {
    return {
      facts: this.#facts.take(),
      bad: this.#bad.take(),
      keys: this.#keys.take(),
      tables: this.#keys.takeTables(),
      counts: this.#rows.takeCounts(),
    };
  }
}
