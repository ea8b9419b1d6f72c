/**
 * The byte-level fast path of the emitter for CSV: a clean row (no bad value, nothing that
 * needs the general parsers) is turned into its fact line and key-index line without ever
 * becoming JS strings, which is where the time went (UTF-8 decode, UTF-16 strings, GC,
 * re-encode). Every other row returns false and the caller hands it to RowEmitter, so the
 * output is byte-for-byte what RowEmitter writes (checked by tests on random rows).
 */
import { hash } from "node:crypto";
import { fnv1a, identityOffset, KEY_ROW_ID_CHARS } from "../../publish/artifacts/key-index.ts";
import { pushLineEntry } from "../../publish/artifacts/line-table.ts";
import type { GrowableBytes, MemoryKeyIndex } from "../../publish/artifacts/memory-sinks.ts";
import { decimalDigits, fnv1aUtf8, put, writeInt } from "../../publish/artifacts/utf8-bytes.ts";
import type { RowEmitter } from "../../quality/emit/row-emitter.ts";
import type { CompiledSchema, HeaderMap } from "../../quality/emit/schema.ts";
import { isProblem, parseString } from "../../quality/emit/value-parsers.ts";
import { type ByteRecord, ESCAPED } from "./csv-bytes.ts";
import { copyRowIds, type WaitingIds } from "./row-ids/copy-row-ids.ts";
import { MAX_BATCHED_PAYLOAD, type RowIdBatch } from "./row-ids/row-id-batch.ts";
import { writeValue } from "./write-value.ts";

const ROW_ID = Buffer.from('"row_id":"');
// finish() copies a key line's row id four bytes at a time.
if (KEY_ROW_ID_CHARS % 4 !== 0) throw new Error("KEY_ROW_ID_CHARS must be a multiple of 4");
const ROW_NUMBER = Buffer.from('","row_number":');
const PAYLOAD = Buffer.from(',"payload":');

/** Node's fast ASCII writer on Buffer (stable, undocumented in the typings). */
interface Latin1Writable {
  latin1Write(text: string, offset: number): number;
}

/** Per-category bytes: `"category_key":"x",` for the fact line and the key-index prefix. */
interface CategoryBytes {
  line: Buffer;
  /** The fact line up to its row id: head, `line`, `"row_id":"` (one copy per row). */
  lead: Buffer;
  json: Buffer;
  /** FNV state after `category_json \t`. */
  hash: number;
}

/** A category as its raw field bytes, its text and its bytes in the output. */
interface SeenCategory {
  raw: Uint8Array;
  category: string;
  bytes: CategoryBytes;
}

/** True when raw equals b[a, e) (a plain loop: no closure per row, unlike every()). */
function sameBytes(raw: Uint8Array, b: Uint8Array, a: number, e: number): boolean {
  if (raw.length !== e - a) return false;
  for (let i = 0; i < raw.length; i++) if (raw[i] !== b[a + i]) return false;
  return true;
}

/** Fast-path emitter for one batch reader; falls back to `rows` for anything unusual. */
export class ByteRowEmitter {
  readonly #head: Buffer;
  readonly #prefixes: Buffer[];
  readonly #categories = new Map<string, CategoryBytes>();
  readonly #rawCategories = new Map<number, SeenCategory[]>();
  /** The category last seen for each of 64 hash slots: most rows find theirs here. */
  readonly #recent: Array<SeenCategory | undefined> = new Array(64).fill(undefined);
  readonly #none: CategoryBytes;
  readonly #margin: number;
  // Where the last line's row id and row number were written (read by #indexKey).
  #idAt = 0;
  #numberAt = 0;
  #digits = 0;
  /** Whether the last line's row id waits in `ids` (then so does its key line's). */
  #deferred = false;
  /** Key lines whose row id is not written yet: bucket, where in it, where the fact's id is. */
  readonly #waiting: WaitingIds;

  constructor(
    private readonly schema: CompiledSchema,
    private readonly header: HeaderMap,
    o: { runId: string; supplier: string },
    private readonly rows: RowEmitter,
    private readonly facts: GrowableBytes,
    private readonly keys: MemoryKeyIndex,
    /** Batched row ids, whose facts buffer `facts` must be; without it, one hash per row. */
    private readonly ids?: RowIdBatch,
  ) {
    if (ids && ids.facts !== facts) throw new Error("batched row ids need the facts buffer");
    const room = ids ? ids.capacity : 0;
    this.#waiting = {
      count: 0,
      bucket: new Int32Array(room),
      at: new Int32Array(room),
      idAt: new Int32Array(room),
    };
    this.#head = Buffer.from(
      `{"run_id":${JSON.stringify(o.runId)},"supplier":${JSON.stringify(o.supplier)},`,
    );
    const none = Buffer.alloc(0);
    this.#none = {
      line: none,
      lead: Buffer.concat([this.#head, ROW_ID]),
      json: none,
      hash: fnv1a("\t", fnv1a("")),
    };
    this.#prefixes = schema.prefixes.map((p) => Buffer.from(p));
    this.#margin = this.#prefixes.reduce((n, p) => n + p.length + 32, 64);
  }

  /** Emits a clean record; false when RowEmitter must handle it (bad value, odd text). */
  tryRow(r: ByteRecord): boolean {
    if (r.malformed || r.count !== this.header.width) return false;
    const b = r.buf;
    let cat = this.#none;
    let category: string | undefined;
    if (this.header.category >= 0) {
      const f = this.header.category;
      if (r.flags[f]! & ESCAPED) return false;
      const seen = this.#categoryOf(b, r.starts[f]!, r.ends[f]!);
      if (!seen) return false;
      category = seen.category;
      cat = seen.bytes;
    }
    const columns = this.schema.columns;
    const positions = this.header.positions;
    // The record's bytes bound its fields' (delimiters, quotes and line end included).
    const fieldBytes = r.end - r.start;
    // The payload is built in place, after the line's prefix whose length is known up front:
    // head, category, "row_id":"<64 hex>","row_number":<digits>,"payload":
    const lead = cat.lead;
    const digits = decimalDigits(r.line);
    const pre = lead.length + 64 + ROW_NUMBER.length + digits + PAYLOAD.length;
    const facts = this.facts;
    // Worst case: every byte escaped as \u00XX (6x), plus prefixes and numbers.
    facts.ensure(pre + fieldBytes * 6 + this.#margin);
    const s = facts.buf;
    const start = facts.used;
    const payloadStart = start + pre;
    let p = payloadStart;
    let keyStart = 0;
    let keyEnd = 0;
    for (let i = 0; i < columns.length; i++) {
      const prefix = this.#prefixes[i]!;
      p = put(prefix, 0, prefix.length, s, p);
      const valueStart = p;
      p = writeValue(columns[i]!, r, positions[i]!, s, p);
      if (p < 0) return false;
      if (i === this.schema.keyIndex) {
        keyStart = valueStart;
        keyEnd = p;
      }
    }
    s[p++] = 0x7d;
    facts.used = this.#finishLine(s, { start, payloadStart, end: p, lead, line: r.line, digits });
    this.#indexKey(s, cat, keyStart, keyEnd);
    this.rows.countGood(category);
    return true;
  }

  /**
   * Writes the line's prefix in front of its payload (head, category, row id = SHA-256 of the
   * payload, row number) and closes it; returns the end of the line.
   */
  #finishLine(
    s: Buffer,
    at: {
      start: number;
      payloadStart: number;
      end: number;
      lead: Uint8Array;
      line: number;
      digits: number;
    },
  ): number {
    const { start, payloadStart, lead } = at;
    let p = at.end;
    let o = start;
    s.set(lead, o);
    o += lead.length;
    this.#idAt = o;
    const ids = this.ids;
    this.#deferred = ids !== undefined && p - payloadStart <= MAX_BATCHED_PAYLOAD;
    if (this.#deferred) {
      if (ids!.full) this.finish();
      ids!.queue(payloadStart, p - payloadStart, o);
      o += 64;
    } else {
      // Hex output: measured ~3x cheaper than a "buffer" digest (no Buffer object per row); a
      // plain Uint8Array view is cheaper to make than Buffer#subarray.
      const rowId = hash(
        "sha256",
        new Uint8Array(s.buffer, s.byteOffset + payloadStart, p - payloadStart),
        "hex",
      );
      o += (s as unknown as Latin1Writable).latin1Write(rowId, o);
    }
    o = put(ROW_NUMBER, 0, ROW_NUMBER.length, s, o);
    this.#numberAt = o;
    this.#digits = at.digits;
    o = writeInt(s, o, at.line);
    put(PAYLOAD, 0, PAYLOAD.length, s, o);
    s[p++] = 0x7d;
    s[p++] = 0x0a;
    return p;
  }

  /** Adds the line's key index entry (row id, row number, category, key) and its table entry. */
  #indexKey(s: Buffer, cat: CategoryBytes, keyStart: number, keyEnd: number): void {
    const idAt = this.#idAt;
    const numberAt = this.#numberAt;
    const hash = fnv1aUtf8(s, keyStart, keyEnd, cat.hash);
    const b = hash & (this.keys.buckets - 1);
    const bucket = this.keys.bucket(b);
    bucket.ensure(KEY_ROW_ID_CHARS + 24 + cat.json.length + (keyEnd - keyStart) + 4);
    const k = bucket.buf;
    const lineStart = bucket.used;
    let q = lineStart + KEY_ROW_ID_CHARS;
    if (this.#deferred) {
      const w = this.#waiting;
      w.bucket[w.count] = b;
      w.at[w.count] = lineStart;
      w.idAt[w.count++] = idAt;
    } else put(s, idAt, idAt + KEY_ROW_ID_CHARS, k, lineStart);
    k[q++] = 0x09;
    q = put(s, numberAt, numberAt + this.#digits, k, q);
    k[q++] = 0x09;
    k.set(cat.json, q);
    q += cat.json.length;
    k[q++] = 0x09;
    q = put(s, keyStart, keyEnd, k, q);
    k[q++] = 0x0a;
    bucket.used = q;
    pushLineEntry(this.keys.table(b), hash, q - lineStart, identityOffset(this.#digits));
  }

  /**
   * Writes the row ids still waiting in `ids` into their fact and key lines: before the batch's
   * output is taken, and whenever `ids` is full.
   */
  finish(): void {
    if (!this.ids) return;
    this.ids.run();
    const w = this.#waiting;
    if (w.count === 0) return;
    // Four bytes at a time through DataViews: a byte loop cost ~3x as much per line.
    const view = (b: Buffer) => new DataView(b.buffer, b.byteOffset, b.length);
    const buckets = Array.from({ length: this.keys.buckets }, (_, b) =>
      view(this.keys.bucket(b).buf),
    );
    copyRowIds(w, view(this.facts.buf), buckets);
    w.count = 0;
  }

  /** Forgets the waiting row ids (a batch that failed half way: its output is dropped). */
  discard(): void {
    this.ids?.clear();
    this.#waiting.count = 0;
  }

  /**
   * The category of a raw field, cached by its bytes (a file has few categories): no string
   * is made per row. Undefined when the field is empty or not valid text.
   */
  #categoryOf(b: Buffer, a: number, e: number): SeenCategory | undefined {
    const h = fnv1aUtf8(b, a, e, 0x811c9dc5);
    const recent = this.#recent[h & 63];
    if (recent && sameBytes(recent.raw, b, a, e)) return recent;
    const list = this.#rawCategories.get(h);
    let entry = list?.find((seen) => sameBytes(seen.raw, b, a, e));
    if (!entry) {
      const c = parseString(b.toString("utf8", a, e), false);
      if (c === null || isProblem(c)) return undefined;
      entry = {
        raw: Uint8Array.prototype.slice.call(b, a, e),
        category: c,
        bytes: this.#category(c),
      };
      if (list) list.push(entry);
      else this.#rawCategories.set(h, [entry]);
    }
    this.#recent[h & 63] = entry;
    return entry;
  }

  #category(c: string): CategoryBytes {
    let bytes = this.#categories.get(c);
    if (!bytes) {
      const json = JSON.stringify(c);
      const line = Buffer.from(`"category_key":${json},`);
      bytes = {
        line,
        lead: Buffer.concat([this.#head, line, ROW_ID]),
        json: Buffer.from(json),
        hash: fnv1a("\t", fnv1a(json)),
      };
      this.#categories.set(JSON.parse(json) as string, bytes);
    }
    return bytes;
  }
}
