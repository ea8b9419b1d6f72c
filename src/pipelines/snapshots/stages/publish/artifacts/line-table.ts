/**
 * A key-index bucket's line table: for every line of the bucket file, in order, the identity
 * hash (the one the bucket was chosen by, as indexLines computes it), then the line's length in
 * bytes (low 24 bits) with where its identity starts in it (high 8 bits), two little-endian
 * int32. A line too long for that (16 MiB) gets 0, which makes the table unusable: the check
 * reads that bucket's text instead. The CSV workers write it beside each bucket file while
 * they emit the lines, so the key check locates and hashes the new snapshot's lines without
 * reading them all again (the hash is checked by tests, the positions by linesFromTable on
 * every line). With the state on local disk the tables are published with it (the next run's
 * check then needs no hashing of the previous state's lines either); otherwise they are
 * deleted once the check is done.
 */
import { closeSync, openSync } from "node:fs";
import { rm } from "node:fs/promises";
import { endianness } from "node:os";
import { KEY_ROW_ID_CHARS } from "./key-index.ts";
import { type IndexLines, type LineArrays, viewOf } from "./key-lines.ts";

/** Bytes per line in a table. */
const ENTRY_BYTES = 8;

/** The line table file of a bucket file (`0003.tsv` → `0003.lines`). */
export function lineTableOf(bucketFile: string): string {
  return bucketFile.replace(/\.tsv$/, ".lines");
}

/** Creates an empty line table beside each bucket file; returns their paths. */
export function createLineTables(bucketFiles: readonly string[]): string[] {
  return bucketFiles.map((f) => {
    const table = lineTableOf(f);
    closeSync(openSync(table, "w"));
    return table;
  });
}

/** What the table entries are appended to (a growable byte buffer). */
interface ByteSink {
  buf: Uint8Array;
  used: number;
  ensure(n: number): void;
}

/** Longest line a table entry holds. */
const MAX_LENGTH = 0xffffff;

/**
 * Appends one line's entry: its identity hash, its length and where its identity starts in it
 * (after the row id's and the row number's tabs).
 */
export function pushLineEntry(
  table: ByteSink,
  hash: number,
  lineLength: number,
  identityAt: number,
): void {
  const length = lineLength <= MAX_LENGTH && identityAt < 256 ? (identityAt << 24) | lineLength : 0;
  table.ensure(ENTRY_BYTES);
  const b = table.buf;
  const p = table.used;
  b[p] = hash;
  b[p + 1] = hash >>> 8;
  b[p + 2] = hash >>> 16;
  b[p + 3] = hash >>> 24;
  b[p + 4] = length;
  b[p + 5] = length >>> 8;
  b[p + 6] = length >>> 16;
  b[p + 7] = length >>> 24;
  table.used = p + ENTRY_BYTES;
}

/** The table of the lines `keep` keeps, in order (for a bucket rewritten without some). */
export function tableOf(lines: IndexLines, keep: (k: number) => boolean): Buffer {
  const table = { buf: Buffer.alloc(lines.count * ENTRY_BYTES), used: 0, ensure() {} };
  for (let k = 0; k < lines.count; k++) {
    const start = lines.start[k]!;
    if (keep(k))
      pushLineEntry(table, lines.hash[k]!, lines.idEnd[k]! - start + 1, lines.idStart[k]! - start);
  }
  return table.buf.subarray(0, table.used);
}

const LITTLE_ENDIAN = endianness() === "LE";

/** A table's entries as int32s: a view of its bytes where it can be one, else a copy. */
function entriesOf(table: Uint8Array): Int32Array {
  const n = table.length >> 2;
  if (LITTLE_ENDIAN && table.byteOffset % 4 === 0)
    return new Int32Array(table.buffer, table.byteOffset, n);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = i * 4;
    out[i] = table[p]! | (table[p + 1]! << 8) | (table[p + 2]! << 16) | (table[p + 3]! << 24);
  }
  return out;
}

/**
 * The bucket's lines located from its table, as indexLines(text) would find them; undefined
 * when the table does not fit the text (a length past its end or not ending a line, no tab
 * after the row id or before the identity, an identity outside its line), and the caller
 * indexes the text instead.
 */
export function linesFromTable(
  text: Buffer,
  table: Uint8Array,
  /** Where to put the positions (four arrays of the table's line count), else new ones. */
  arrays?: LineArrays,
): IndexLines | undefined {
  if (table.length % ENTRY_BYTES !== 0) return undefined;
  const count = table.length / ENTRY_BYTES;
  const [start, idStart, idEnd, hash] =
    arrays?.(count) ?? [0, 1, 2, 3].map(() => new Int32Array(count));
  const entries = entriesOf(table);
  const len = text.length;
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const packed = entries[2 * k + 1]!;
    const end = pos + (packed & MAX_LENGTH) - 1;
    // The identity follows the row number's tab.
    const id = pos + (packed >>> 24);
    const fits =
      id > pos + KEY_ROW_ID_CHARS + 1 &&
      id <= end &&
      end < len &&
      text[end] === 10 &&
      text[pos + KEY_ROW_ID_CHARS] === 9 &&
      text[id - 1] === 9;
    if (!fits) return undefined;
    start[k] = pos;
    idStart[k] = id;
    idEnd[k] = end;
    hash[k] = entries[2 * k]!;
    pos = end + 1;
  }
  if (pos !== len) return undefined;
  return { text, view: viewOf(text), count, start, idStart, idEnd, hash };
}

/**
 * Deletes the line tables beside the bucket files, once the key check is done with them. Not
 * during the check: there, a deletion waited for the file system's journal behind the syncs of
 * the run's outputs (up to half a second on the 10M bench file).
 */
export async function removeLineTables(bucketFiles: readonly string[]): Promise<void> {
  await Promise.all(bucketFiles.map((f) => rm(lineTableOf(f), { force: true })));
}
