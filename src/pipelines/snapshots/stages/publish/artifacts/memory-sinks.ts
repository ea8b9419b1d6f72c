import { identityHashOf, identityOffset, indexLine } from "./key-index.ts";
import { pushLineEntry } from "./line-table.ts";

interface Utf8Writable {
  utf8Write(text: string, offset: number): number;
}

/**
 * Lines encoded into a growable byte buffer (a batch's output). The byte-level emitter writes
 * into `buf` at `used` directly after `ensure`; string lines go through writeLine.
 */
export class GrowableBytes {
  buf: Buffer;
  used = 0;

  constructor(initial = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  /** Makes room for n more bytes. */
  ensure(n: number): void {
    const need = this.used + n;
    if (need <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, this.used);
    this.buf = bigger;
  }

  /** Appends one line (UTF-8). */
  writeLine(text: string): void {
    this.ensure(text.length * 3);
    this.used += (this.buf as unknown as Utf8Writable).utf8Write(text, this.used);
  }

  /** Appends bytes. */
  writeBytes(bytes: Uint8Array, start = 0, end = bytes.length): void {
    this.ensure(end - start);
    this.buf.set(bytes.subarray(start, end), this.used);
    this.used += end - start;
  }

  /** The bytes so far (a view, valid until the next write) and starts over, keeping the memory. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.used);
    this.used = 0;
    return out;
  }
}

/**
 * Key-index lines per bucket, in memory, each bucket with its line table (see line-table.ts):
 * the identity hash and length of every line, which spares the key check reading them again.
 */
export class MemoryKeyIndex {
  readonly #buckets: GrowableBytes[] = [];
  readonly #tables: GrowableBytes[] = [];

  constructor(readonly buckets: number) {
    for (let b = 0; b < buckets; b++) {
      this.#buckets.push(new GrowableBytes(1 << 12));
      this.#tables.push(new GrowableBytes(1 << 10));
    }
  }

  /** The buffer of one bucket (the byte-level emitter appends to it directly). */
  bucket(b: number): GrowableBytes {
    return this.#buckets[b]!;
  }

  /** The line table of one bucket (the byte-level emitter appends to it directly). */
  table(b: number): GrowableBytes {
    return this.#tables[b]!;
  }

  /** Records one fact. */
  add(rowId: string, rowNumber: number, catJson: string, keyJson: string): void {
    const hash = identityHashOf(catJson, keyJson);
    const b = hash & (this.buckets - 1);
    const bucket = this.#buckets[b]!;
    const before = bucket.used;
    bucket.writeLine(indexLine(rowId, rowNumber, catJson, keyJson));
    const identityAt = identityOffset(String(rowNumber).length);
    pushLineEntry(this.#tables[b]!, hash, bucket.used - before, identityAt);
  }

  /** Each bucket's bytes (views, valid until the next write); then starts over. */
  take(): Uint8Array[] {
    return this.#buckets.map((b) => b.take());
  }

  /** Each bucket's line table (views, valid until the next write); then starts over. */
  takeTables(): Uint8Array[] {
    return this.#tables.map((t) => t.take());
  }
}
