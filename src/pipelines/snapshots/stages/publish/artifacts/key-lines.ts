/**
 * A key-index bucket as bytes with its lines located (start, identity range, identity hash),
 * and an open-addressing table of its identities: dedupe and diff allocate no string per line.
 */
import { KEY_ROW_ID_CHARS } from "./key-index.ts";
import { fnv1aUtf8, fnvStoppedAt } from "./utf8-bytes.ts";

/**
 * Positions of a bucket's lines: where each starts, and its identity (after the 2nd tab). The
 * bucket stays bytes: no string per bucket or per line for the GC to collect.
 */
export interface IndexLines {
  text: Buffer;
  /** The same bytes, read four at a time when lines are compared (see sameBytes). */
  view: DataView;
  count: number;
  start: Int32Array;
  idStart: Int32Array;
  idEnd: Int32Array;
  hash: Int32Array;
}

/** Gives four int32 arrays of `count` elements to fill (memory a caller reuses). */
export type LineArrays = (count: number) => [Int32Array, Int32Array, Int32Array, Int32Array];

/**
 * Indexes the lines of a bucket (FNV of each identity, as identityHash computes it), into the
 * arrays `arrays` gives when given, else into new ones.
 */
export function indexLines(text: Buffer, arrays?: LineArrays): IndexLines {
  // Sized from the first line's length with room to spare (lines of a bucket are alike), so
  // the arrays rarely grow; they double when that guess was short.
  const firstLine = text.indexOf(10) + 1 || text.length || 1;
  let cap = Math.max(1024, Math.ceil((text.length / firstLine) * 1.25));
  let [start, idStart, idEnd, hash] = arrays?.(cap) ?? [0, 1, 2, 3].map(() => new Int32Array(cap));
  let n = 0;
  let pos = 0;
  const len = text.length;
  while (pos < len) {
    // One plain loop per line, which also hashes the identity: Buffer#indexOf costs a native
    // call each. The row id has a fixed width: its tab is looked for where it must be first.
    let i = text[pos + KEY_ROW_ID_CHARS] === 9 ? pos + KEY_ROW_ID_CHARS + 1 : pos;
    let tabs = i === pos ? 0 : 1;
    for (; i < len; i++) {
      const c = text[i]!;
      if (c === 10) break;
      if (c === 9 && ++tabs === 2) {
        i++;
        break;
      }
    }
    // Every index line has its identity after the second tab (none: an empty identity at the
    // line's end, where the loop stopped).
    const a = i;
    const h = tabs === 2 ? fnv1aUtf8(text, a, len, 0x811c9dc5, 10) : 0x811c9dc5;
    const nl = tabs === 2 ? fnvStoppedAt() : i;
    if (nl > pos) {
      if (n === cap) {
        cap *= 2;
        const grow = (x: Int32Array) => {
          const b = new Int32Array(cap);
          b.set(x);
          return b;
        };
        start = grow(start);
        idStart = grow(idStart);
        idEnd = grow(idEnd);
        hash = grow(hash);
      }
      start[n] = pos;
      idStart[n] = a;
      idEnd[n] = nl;
      hash[n] = h;
      n++;
    }
    pos = nl + 1;
  }
  return { text, view: viewOf(text), count: n, start, idStart, idEnd, hash };
}

/** A DataView of exactly a buffer's bytes. */
export function viewOf(text: Buffer): DataView {
  return new DataView(text.buffer, text.byteOffset, text.byteLength);
}

/**
 * True when bytes [as, ae) of a's text equal bytes [bs, be) of b's (of the same bucket or of
 * two). Four bytes at a time, then byte by byte: a key that is still there is compared twice
 * (identity, row id), and byte by byte those compares were half the cost of diffing it.
 */
export function sameBytes(
  a: IndexLines,
  as: number,
  ae: number,
  b: IndexLines,
  bs: number,
  be: number,
): boolean {
  const n = ae - as;
  if (n !== be - bs) return false;
  const av = a.view;
  const bv = b.view;
  let i = 0;
  for (; i + 4 <= n; i += 4) if (av.getInt32(as + i) !== bv.getInt32(bs + i)) return false;
  const at = a.text;
  const bt = b.text;
  for (; i < n; i++) if (at[as + i] !== bt[bs + i]) return false;
  return true;
}

/**
 * The miss filter's multiplier: another odd constant than the slots' (see #home), so that the
 * identities that share a filter bit are not those that share a home slot.
 */
const FILTER_MIX = 0x85ebca6b;

/**
 * An open-addressing table of a bucket's identities (line numbers + 1 in a typed array), so
 * dedupe and diff allocate no strings per line; collisions are settled by comparing text.
 */
export class IdentityTable {
  readonly #slots: Int32Array;
  readonly #mask: number;
  readonly #shift: number;
  /** The miss filter's bits (see find), when the table has one. */
  #filter: Int32Array | undefined;
  #filterShift = 0;

  /** `slots`: gives `size` zeroed slots to use (reused memory), else they are new. */
  constructor(
    readonly lines: IndexLines,
    slots?: (size: number) => Int32Array,
  ) {
    let size = 16;
    let bits = 4;
    while (size < lines.count * 2) {
      size *= 2;
      bits++;
    }
    this.#slots = slots?.(size) ?? new Int32Array(size);
    this.#mask = size - 1;
    this.#shift = 32 - bits;
  }

  /**
   * Gives the table a miss filter for the finds to come (a diff against a previous state, where
   * every key that left or changed category misses): a bit array of at least 16 bits per line,
   * one bit set per line from its identity's hash. A find whose bit is clear answers -1 after
   * one look into those ~2 bytes per line, which stay in the core's cache, instead of walking
   * the slots and the lines' hashes (~10 bytes per line, which do not); about one absent
   * identity in 16 still walks them. Measured on the bench's diff run, where every previous key
   * misses: ~22 ns a find without it, ~7 with it. Add no line after this. `words`: gives
   * `size` zeroed words to use (reused memory).
   */
  addMissFilter(words: (size: number) => Int32Array): void {
    let bits = 10;
    while (1 << bits < this.lines.count * 16) bits++;
    const filter = words(1 << (bits - 5));
    const shift = 32 - bits;
    const hash = this.lines.hash;
    for (let k = 0; k < this.lines.count; k++) {
      const b = Math.imul(hash[k]!, FILTER_MIX) >>> shift;
      filter[b >>> 5]! |= 1 << (b & 31);
    }
    this.#filter = filter;
    this.#filterShift = shift;
  }

  /**
   * A line's first slot, from the high bits of its hash times a Fibonacci constant: the low
   * bits are the same for every line of a bucket (they chose the bucket), so masking the hash
   * itself would start every probe in one slot of each 2^k and make long runs.
   */
  #home(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.#shift;
  }

  /** The line of this table holding the identity of `other`'s line j, or -1. */
  find(other: IndexLines, j: number): number {
    const h = other.hash[j]!;
    const filter = this.#filter;
    if (filter !== undefined) {
      const b = Math.imul(h, FILTER_MIX) >>> this.#filterShift;
      if ((filter[b >>> 5]! & (1 << (b & 31))) === 0) return -1;
    }
    const l = this.lines;
    for (let i = this.#home(h); ; i = (i + 1) & this.#mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) return -1;
      const k = slot - 1;
      if (
        l.hash[k] === h &&
        sameBytes(l, l.idStart[k]!, l.idEnd[k]!, other, other.idStart[j]!, other.idEnd[j]!)
      )
        return k;
    }
  }

  /** Adds line k; returns the earlier line with the same identity, or -1 (then k is added). */
  add(k: number): number {
    const l = this.lines;
    const h = l.hash[k]!;
    for (let i = this.#home(h); ; i = (i + 1) & this.#mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) {
        this.#slots[i] = k + 1;
        return -1;
      }
      const j = slot - 1;
      if (
        l.hash[j] === h &&
        sameBytes(l, l.idStart[j]!, l.idEnd[j]!, l, l.idStart[k]!, l.idEnd[k]!)
      )
        return j;
    }
  }
}
