/**
 * A key-index bucket as bytes with its lines located (start, identity range, identity hash),
 * and an open-addressing table of its identities: dedupe and diff allocate no string per line.
 */
import { KEY_ROW_ID_CHARS } from "./key-index.ts";

/**
 * Positions of a bucket's lines: where each starts, and its identity (after the 2nd tab). The
 * bucket stays bytes: no string per bucket or per line for the GC to collect.
 */
export interface IndexLines {
  text: Buffer;
  count: number;
  start: Int32Array;
  idStart: Int32Array;
  idEnd: Int32Array;
  hash: Int32Array;
}

/** Where fnvToLf stopped (a second result without an object per line). */
let lineEnd = 0;

/**
 * FNV-1a of the text from `start` to the next LF (or `end`), over UTF-16 code units as
 * fnv1aUtf8 computes it, in the same pass that finds the LF; sets lineEnd to the LF's index.
 */
function fnvToLf(b: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  let i = start;
  while (i < end) {
    const c = b[i]!;
    if (c === 10) break;
    let unit: number;
    if (c < 0x80) {
      unit = c;
      i++;
    } else if (c < 0xe0) {
      unit = ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      unit = ((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
      i += 3;
    } else {
      // Outside the BMP: the two surrogates, as a JS string holds the character.
      const cp =
        ((c & 0x07) << 18) |
        ((b[i + 1]! & 0x3f) << 12) |
        ((b[i + 2]! & 0x3f) << 6) |
        (b[i + 3]! & 0x3f);
      h = Math.imul(h ^ (0xd800 | ((cp - 0x10000) >> 10)), 0x01000193);
      unit = 0xdc00 | ((cp - 0x10000) & 0x3ff);
      i += 4;
    }
    h = Math.imul(h ^ unit, 0x01000193);
  }
  lineEnd = i < end ? i : end;
  return h | 0;
}

/** Indexes the lines of a bucket (FNV of each identity, as identityHash computes it). */
export function indexLines(text: Buffer): IndexLines {
  let cap = 1024;
  let start = new Int32Array(cap);
  let idStart = new Int32Array(cap);
  let idEnd = new Int32Array(cap);
  let hash = new Int32Array(cap);
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
    // Every index line has its identity after the second tab (none: an empty identity).
    const a = i;
    const h = tabs === 2 ? fnvToLf(text, a, len) : 0x811c9dc5 | 0;
    const nl = tabs === 2 ? lineEnd : i;
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
      idStart[n] = tabs === 2 ? a : nl;
      idEnd[n] = nl;
      hash[n] = h;
      n++;
    }
    pos = nl + 1;
  }
  return { text, count: n, start, idStart, idEnd, hash };
}

/** True when two identity ranges (of possibly different buckets) are equal. */
export function sameRange(
  a: Buffer,
  as: number,
  ae: number,
  b: Buffer,
  bs: number,
  be: number,
): boolean {
  if (ae - as !== be - bs) return false;
  for (let i = 0; i < ae - as; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/**
 * An open-addressing table of a bucket's identities (line numbers + 1 in a typed array), so
 * dedupe and diff allocate no strings per line; collisions are settled by comparing text.
 */
export class IdentityTable {
  readonly #slots: Int32Array;
  readonly #mask: number;
  readonly #shift: number;

  constructor(readonly lines: IndexLines) {
    let size = 16;
    let bits = 4;
    while (size < lines.count * 2) {
      size *= 2;
      bits++;
    }
    this.#slots = new Int32Array(size);
    this.#mask = size - 1;
    this.#shift = 32 - bits;
  }

  /**
   * A line's first slot, from the high bits of its hash times a Fibonacci constant: the low
   * bits are the same for every line of a bucket (they chose the bucket), so masking the hash
   * itself would start every probe in one slot of each 2^k and make long runs.
   */
  #home(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.#shift;
  }

  /** The line already holding this identity (text range), or -1. */
  find(text: Buffer, s: number, e: number, h: number): number {
    const l = this.lines;
    for (let i = this.#home(h); ; i = (i + 1) & this.#mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) return -1;
      const k = slot - 1;
      if (l.hash[k] === h && sameRange(l.text, l.idStart[k]!, l.idEnd[k]!, text, s, e)) return k;
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
        sameRange(l.text, l.idStart[j]!, l.idEnd[j]!, l.text, l.idStart[k]!, l.idEnd[k]!)
      )
        return j;
    }
  }
}
