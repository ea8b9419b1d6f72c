/**
 * One pass over the key index, bucket by bucket: finds duplicate keys in the new snapshot
 * (first occurrence wins) and compares it with the previous state (full snapshot: a key
 * absent from the new file is removed, i.e. its stock counts as 0). Memory: one bucket.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { keyBucketName } from "../../intake/layout/tree.ts";
import { describeIdentity, KEY_ROW_ID_CHARS, parseIndexLine } from "./key-index.ts";
import { fnv1aUtf8 } from "./utf8-bytes.ts";

/** The previous state's index, read one bucket at a time. */
export interface PreviousIndex {
  runId: string;
  buckets: number;
  /** Text of one bucket file ("" or undefined when empty/absent). */
  read(bucket: number): Promise<string | undefined>;
}

/** A key reported in samples. */
export interface KeySample {
  category_key?: string;
  key: unknown;
}

/** Full-snapshot comparison with the previous state. */
export interface SnapshotDiff {
  previous_run_id: string | null;
  added: number;
  /** Keys of the previous state missing from this snapshot: their quantity is now 0. */
  removed: number;
  changed: number;
  unchanged: number;
  samples: { added: KeySample[]; removed: KeySample[]; changed: KeySample[] };
}

/** A later occurrence of a key already seen in this file. */
export interface DuplicateRow {
  rowNumber: number;
  /** `category_json \t key_json`. */
  identity: string;
}

const SAMPLES = 10;

const NL = Buffer.from("\n");

/**
 * Positions of a bucket's lines: where each starts, and its identity (after the 2nd tab). The
 * bucket stays bytes: no string per bucket or per line for the GC to collect.
 */
interface Lines {
  text: Buffer;
  count: number;
  start: Int32Array;
  idStart: Int32Array;
  idEnd: Int32Array;
  hash: Int32Array;
}

/** Indexes the lines of a bucket (FNV of each identity, as identityHash computes it). */
function indexLines(text: Buffer): Lines {
  let cap = 1024;
  let start = new Int32Array(cap);
  let idStart = new Int32Array(cap);
  let idEnd = new Int32Array(cap);
  let hash = new Int32Array(cap);
  let n = 0;
  let pos = 0;
  const len = text.length;
  while (pos < len) {
    // One plain loop per line: Buffer#indexOf costs a native call each (three per line).
    let nl = pos;
    let a = -1;
    let tabs = 0;
    for (; nl < len; nl++) {
      const c = text[nl]!;
      if (c === 10) break;
      if (c === 9 && ++tabs === 2) a = nl + 1;
    }
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
      // Every index line has its identity after the second tab.
      if (a < 0) a = nl;
      start[n] = pos;
      idStart[n] = a;
      idEnd[n] = nl;
      hash[n] = fnv1aUtf8(text, a, nl, 0x811c9dc5);
      n++;
    }
    pos = nl + 1;
  }
  return { text, count: n, start, idStart, idEnd, hash };
}

/** True when two identity ranges (of possibly different buckets) are equal. */
function sameRange(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  for (let i = 0; i < ae - as; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/**
 * An open-addressing table of a bucket's identities (line numbers + 1 in a typed array), so
 * dedupe and diff allocate no strings per line; collisions are settled by comparing text.
 */
class IdentityTable {
  readonly #slots: Int32Array;
  readonly #mask: number;

  constructor(readonly lines: Lines) {
    let size = 16;
    while (size < lines.count * 2) size *= 2;
    this.#slots = new Int32Array(size);
    this.#mask = size - 1;
  }

  /** The line already holding this identity (text range), or -1. */
  find(text: Buffer, s: number, e: number, h: number): number {
    const l = this.lines;
    for (let i = h & this.#mask; ; i = (i + 1) & this.#mask) {
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
    for (let i = h & this.#mask; ; i = (i + 1) & this.#mask) {
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

/**
 * Dedupes the new index in place (bucket files rewritten without duplicates) and diffs it
 * against `previous`. Returns the diff and the duplicates, in file order.
 */
export async function dedupeAndDiff(
  dir: string,
  buckets: number,
  previous: PreviousIndex | undefined,
): Promise<{ diff: SnapshotDiff; duplicates: DuplicateRow[] }> {
  const diff: SnapshotDiff = {
    previous_run_id: previous?.runId ?? null,
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    samples: { added: [], removed: [], changed: [] },
  };
  const duplicates: DuplicateRow[] = [];
  const sample = (list: KeySample[], l: Lines, k: number) => {
    if (list.length < SAMPLES)
      list.push(describeIdentity(l.text.toString("utf8", l.idStart[k]!, l.idEnd[k]!)));
  };
  const pb = previous?.buckets ?? buckets;
  // Visit new buckets so that each previous bucket is needed for a consecutive run of them.
  const order: number[] = [];
  const step = Math.min(pb, buckets);
  for (let base = 0; base < step; base++) for (let b = base; b < buckets; b += step) order.push(b);
  let cachedPrev: { bucket: number; lines: Lines } | undefined;

  for (const b of order) {
    const file = path.join(dir, keyBucketName(b));
    const lines = indexLines(readFileSync(file));
    const table = new IdentityTable(lines);
    const state = new Uint8Array(lines.count); // 1 = duplicate, 2 = matched in previous
    let dups = 0;
    for (let k = 0; k < lines.count; k++) {
      if (table.add(k) < 0) continue;
      state[k] = 1;
      dups++;
      const line = lines.text.toString("utf8", lines.start[k]!, lines.idEnd[k]!);
      duplicates.push({
        rowNumber: parseIndexLine(line).rowNumber,
        identity: lines.text.toString("utf8", lines.idStart[k]!, lines.idEnd[k]!),
      });
    }
    if (dups > 0) {
      const kept: Buffer[] = [];
      for (let k = 0; k < lines.count; k++) {
        if (state[k] !== 1) kept.push(lines.text.subarray(lines.start[k]!, lines.idEnd[k]!), NL);
      }
      writeFileSync(file, Buffer.concat(kept));
    }
    if (previous) {
      const prevBuckets: number[] = [];
      if (pb >= buckets) for (let p = b; p < pb; p += buckets) prevBuckets.push(p);
      else prevBuckets.push(b & (pb - 1));
      for (const p of prevBuckets) {
        if (cachedPrev?.bucket !== p)
          cachedPrev = {
            bucket: p,
            lines: indexLines(Buffer.from((await previous.read(p)) ?? "", "utf8")),
          };
        const prev = cachedPrev.lines;
        for (let j = 0; j < prev.count; j++) {
          const h = prev.hash[j]!;
          if (pb < buckets && (h & (buckets - 1)) !== b) continue;
          const k = table.find(prev.text, prev.idStart[j]!, prev.idEnd[j]!, h);
          if (k < 0) {
            diff.removed++;
            sample(diff.samples.removed, prev, j);
            continue;
          }
          state[k] = 2;
          // Same row_id prefix (the part before the first tab) = same payload.
          if (
            sameRange(
              lines.text,
              lines.start[k]!,
              lines.start[k]! + KEY_ROW_ID_CHARS,
              prev.text,
              prev.start[j]!,
              prev.start[j]! + KEY_ROW_ID_CHARS,
            )
          ) {
            diff.unchanged++;
          } else {
            diff.changed++;
            sample(diff.samples.changed, lines, k);
          }
        }
      }
    }
    for (let k = 0; k < lines.count; k++) {
      if (state[k] !== 0) continue;
      diff.added++;
      sample(diff.samples.added, lines, k);
    }
  }
  duplicates.sort((x, y) => x.rowNumber - y.rowNumber || (x.identity < y.identity ? -1 : 1));
  return { diff, duplicates };
}
