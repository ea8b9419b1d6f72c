/**
 * Cuts a CSV byte stream into batches of whole records for parallel parsing: a record ends at
 * an LF byte outside quotes. Valid for ASCII-compatible encodings (UTF-8, windows-125x, KOI8…),
 * where the quote, delimiter, CR and LF bytes never occur inside a multi-byte character.
 *
 * Quotes follow CsvRecordParser: a quote opens a quoted field only at a field's start (a quote
 * inside an unquoted field, like 5" screen, is data), and a doubled quote inside one is an
 * escape. It also finds lone CRs (a CR outside quoted fields not followed by LF) and throws
 * LoneCrError for the first one, as the text path does.
 */
import { LoneCrError } from "../extract/csv-records.ts";

const LF = 10;
const CR = 13;

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
  readonly #delim: number;
  readonly #checkCr: boolean;
  #pending: Buffer = Buffer.allocUnsafeSlow(1 << 21);
  #len = 0;
  #scanned = 0;
  #inQuotes = 0;
  /** Pending index of the last closing quote (a quote right after it re-opens: an escape). */
  #closedAt = -2;
  /** The last byte scanned is a CR outside quotes: the next byte must be LF. */
  #crAtEnd = false;
  #lfs = 0;
  #line = 1;
  /** Stream offset of the pending buffer's first byte. */
  #base = 0;

  constructor(
    delimiter: string,
    quote: string,
    private readonly alloc: BatchAllocator = fresh,
  ) {
    this.#delim = delimiter.charCodeAt(0);
    this.#quote = quote.charCodeAt(0);
    this.#checkCr = this.#delim !== CR && this.#quote !== CR;
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
    const len = this.#len;
    // A view of the filled part: indexOf must not search the stale bytes beyond it.
    const buf = this.#pending.subarray(0, len);
    const quote = this.#quote;
    const delim = this.#delim;
    let q = this.#inQuotes;
    let closedAt = this.#closedAt;
    let lfs = this.#lfs;
    let cut = -1;
    let lfsAtCut = 0;
    let pos = this.#scanned;
    if (this.#crAtEnd && pos < len) {
      if (buf[pos] !== LF) this.#loneCr(pos - 1);
      this.#crAtEnd = false;
    }
    // The next CR at or after pos (len: none). LF files have none, so this one native search
    // per push is all the lone-CR check costs them; CRLF files pay one step per line.
    let cr = this.#checkCr ? buf.indexOf(CR, pos) : -1;
    if (cr < 0) cr = len;
    // The next LF at or after pos (len: none), kept across stretches like `cr`: each LF is
    // found by one native search, never searched for again from an earlier stretch.
    let lf = nextByte(buf, LF, pos);
    // Native indexOf jumps instead of a byte loop: quotes switch the state, and in each stretch
    // outside quotes the last LF is a record boundary. LFs inside quotes still count as lines.
    while (pos < len) {
      const next = buf.indexOf(quote, pos);
      const end = next < 0 ? len : next;
      let lastLf = -1;
      for (; lf < end; lf = nextByte(buf, LF, lf + 1)) {
        lfs++;
        lastLf = lf;
      }
      if (cr < end) {
        if (q === 0) {
          for (; cr < end; cr = nextByte(buf, CR, cr + 1)) {
            if (cr + 1 === len) {
              // The byte that decides arrives with the next chunk (or never: end()).
              this.#crAtEnd = true;
              break;
            }
            if (buf[cr + 1] !== LF) this.#loneCr(cr);
          }
        } else cr = nextByte(buf, CR, end);
      }
      if (q === 0 && lastLf >= 0) {
        cut = lastLf + 1;
        lfsAtCut = lfs;
      }
      if (next < 0) break;
      if (q === 1) {
        q = 0;
        closedAt = next;
      } else if (next === 0 || next - 1 === closedAt) q = 1;
      else {
        const before = buf[next - 1];
        if (before === delim || before === LF) q = 1;
        // else: a quote inside an unquoted field is data.
      }
      pos = next + 1;
    }
    this.#inQuotes = q;
    if (cut < 0) {
      this.#scanned = len;
      this.#lfs = lfs;
      this.#closedAt = closedAt;
      return undefined;
    }
    const bytes = this.alloc(cut);
    bytes.set(buf.subarray(0, cut));
    this.#pending.copyWithin(0, cut, len);
    this.#len = len - cut;
    this.#scanned = this.#len;
    this.#closedAt = closedAt - cut;
    this.#base += cut;
    this.#lfs = lfs - lfsAtCut;
    const firstLine = this.#line;
    this.#line += lfsAtCut;
    return { bytes, firstLine };
  }

  /** Bytes left after the last boundary (the last record when the file lacks a final LF). */
  end(): RecordBatch | undefined {
    // A CR as the file's last byte ends no line with LF: lone.
    if (this.#crAtEnd) this.#loneCr(this.#len - 1);
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

  /** Throws LoneCrError for the CR at pending index `at` (offset: bytes since the stream start). */
  #loneCr(at: number): never {
    let line = this.#line;
    const buf = this.#pending;
    for (let i = buf.indexOf(LF); i >= 0 && i < at; i = buf.indexOf(LF, i + 1)) line++;
    throw new LoneCrError(line, this.#base + at);
  }
}

/** The next `byte` at or after `from`, or buf.length when there is none. */
function nextByte(buf: Buffer, byte: number, from: number): number {
  const i = buf.indexOf(byte, from);
  return i < 0 ? buf.length : i;
}

/** Encodings whose bytes for `"`, `\n` and `\r` are never part of another character. */
export function isAsciiCompatible(encoding: string): boolean {
  return !/utf-?(16|32)|ucs-?2|utf-?7/i.test(encoding);
}
