/**
 * Cuts a CSV byte stream into batches of whole records for parallel parsing: a record ends at
 * an LF byte outside quotes. Valid for ASCII-compatible encodings (UTF-8, windows-125x, KOI8…),
 * where the quote and LF bytes never occur inside a multi-byte character.
 */
const LF = 10;

/** A batch of whole records and the number of line feeds before and inside it. */
export interface RecordBatch {
  bytes: Uint8Array;
  /** 1-based line number of the batch's first line. */
  firstLine: number;
}

/** Gives memory for a batch of n bytes (recycled buffers when available). */
export type BatchAllocator = (n: number) => Uint8Array;

const fresh: BatchAllocator = (n) => new Uint8Array(n);

/**
 * Accumulates chunks and releases batches ending at the last record boundary seen. The
 * pending bytes live in one growing buffer and batches in memory from `alloc`, so steady
 * state allocates nothing.
 */
export class RecordSplitter {
  readonly #quote: number;
  #pending: Buffer = Buffer.allocUnsafeSlow(1 << 21);
  #len = 0;
  #scanned = 0;
  #inQuotes = 0;
  #lfs = 0;
  #line = 1;

  constructor(
    quote: string,
    private readonly alloc: BatchAllocator = fresh,
  ) {
    this.#quote = quote.charCodeAt(0);
  }

  /** Adds bytes; returns the batch of complete records now available, if any. */
  push(chunk: Uint8Array): RecordBatch | undefined {
    if (this.#len + chunk.length > this.#pending.length) {
      const bigger = Buffer.allocUnsafeSlow(
        Math.max(this.#len + chunk.length, this.#pending.length * 2),
      );
      this.#pending.copy(bigger, 0, 0, this.#len);
      this.#pending = bigger;
    }
    this.#pending.set(chunk, this.#len);
    this.#len += chunk.length;
    const buf = this.#pending;
    const quote = this.#quote;
    const len = this.#len;
    let q = this.#inQuotes;
    let lfs = this.#lfs;
    let cut = -1;
    let lfsAtCut = 0;
    // Native indexOf jumps instead of a byte loop: quotes flip the state, and in each stretch
    // outside quotes the last LF is a record boundary. LFs inside quotes still count as lines.
    let pos = this.#scanned;
    while (pos < len) {
      let next = buf.indexOf(quote, pos);
      if (next >= len) next = -1;
      const end = next < 0 ? len : next;
      const lfsBefore = lfs;
      for (let i = buf.indexOf(LF, pos); i >= 0 && i < end; i = buf.indexOf(LF, i + 1)) lfs++;
      if (q === 0 && lfs > lfsBefore) {
        cut = buf.lastIndexOf(LF, end - 1) + 1;
        lfsAtCut = lfs;
      }
      if (next < 0) break;
      q ^= 1;
      pos = next + 1;
    }
    this.#inQuotes = q;
    if (cut < 0) {
      this.#scanned = len;
      this.#lfs = lfs;
      return undefined;
    }
    const bytes = this.alloc(cut);
    bytes.set(buf.subarray(0, cut));
    buf.copyWithin(0, cut, len);
    this.#len = len - cut;
    this.#scanned = this.#len;
    this.#lfs = lfs - lfsAtCut;
    const firstLine = this.#line;
    this.#line += lfsAtCut;
    return { bytes, firstLine };
  }

  /** Bytes left after the last boundary (the last record when the file lacks a final LF). */
  end(): RecordBatch | undefined {
    if (this.#len === 0) return undefined;
    const bytes = this.alloc(this.#len);
    bytes.set(this.#pending.subarray(0, this.#len));
    this.#len = 0;
    return { bytes, firstLine: this.#line };
  }

  /** Bytes buffered while waiting for a boundary (guards against a runaway quoted field). */
  get pendingBytes(): number {
    return this.#len;
  }
}

/** Encodings whose bytes for `"`, `\n` and `\r` are never part of another character. */
export function isAsciiCompatible(encoding: string): boolean {
  return !/utf-?(16|32)|ucs-?2|utf-?7/i.test(encoding);
}
