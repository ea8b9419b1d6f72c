/**
 * Type feedback for the key check before its first real bucket: a tiny key index (a few
 * lines, as files in memory) run through runGroup every way a thread runs it — a new bucket
 * with and without its line table, a duplicate, a previous bucket as a local file with and
 * without its table and as bytes, keys added, removed, changed and unchanged.
 *
 * Why: V8 optimizes a hot loop while it runs (on-stack replacement) from the types it has seen
 * so far, and code after the loop that no line has reached yet has none. On the 1M bench file
 * the optimized code of the check's loops was thrown away at the end of nearly every bucket and
 * compiled again: ~250 ms of compiler work on the two cores while the check ran. Interpreted,
 * these few dozen lines cost a few milliseconds; they are never optimized, only observed.
 *
 * It touches no file (runGroup reads and writes a map here): ~3-4 ms per thread, where writing
 * and reading its few files in a folder of the run's took ~9-11 ms, most of it opening files;
 * and a thread stopped in the middle leaves nothing behind. Run at a thread's start instead
 * (while the run hashes its input), it made no difference to the check or the run.
 */
import path from "node:path";
import { keyBucketName } from "../../intake/layout/tree.ts";
import { BucketScratch, type ReadWhole } from "./bucket-scratch.ts";
import { type GroupFiles, type GroupLayout, type GroupResult, runGroup } from "./key-diff-group.ts";
import { indexLine } from "./key-index.ts";
import { indexLines } from "./key-lines.ts";
import { lineTableOf, tableOf } from "./line-table.ts";

const ROW_ID = "0123456789abcdef";
const OTHER_ROW_ID = "fedcba9876543210";

/** Files kept in a map, read and written by runGroup as it would the disk's. */
function filesIn(map: Map<string, Uint8Array>): GroupFiles {
  const read: ReadWhole = (file, optional, into) => {
    const bytes = map.get(file);
    if (!bytes) {
      if (optional) return undefined;
      throw new Error(`warm-up: no file ${file}`);
    }
    const buf = into(bytes.length);
    buf.set(bytes);
    return buf.subarray(0, bytes.length);
  };
  return {
    scratch: new BucketScratch(read),
    previousScratch: new BucketScratch(read),
    write: (file, data) => map.set(file, Uint8Array.from(data)),
  };
}

/** Puts a bucket file (and its line table, when asked) in the map; returns its text. */
function putBucket(
  map: Map<string, Uint8Array>,
  file: string,
  lines: string[],
  withTable: boolean,
): Buffer {
  const text = Buffer.from(lines.join(""));
  map.set(file, text);
  if (withTable)
    map.set(
      lineTableOf(file),
      tableOf(indexLines(text), () => true),
    );
  else map.delete(lineTableOf(file));
  return text;
}

/**
 * The warm-up's runs, each path once: results of the runs with a previous bucket as a file and
 * as bytes and without one, with line tables then without (throws if one fails).
 */
export function warmUpRuns(): GroupResult[] {
  const cat = '"c"';
  // Keys 0-7 unchanged, 8-15 changed, 16-23 added (16 twice), 24-31 removed: some lines, as
  // V8 keeps no type feedback for a function until it has run a while.
  const key = (i: number) => `"k${i}"`;
  const newLines = Array.from({ length: 25 }, (_, i) =>
    indexLine(i >= 8 && i < 16 ? OTHER_ROW_ID : ROW_ID, i + 2, cat, key(i === 24 ? 16 : i)),
  );
  const previousLines = Array.from({ length: 24 }, (_, i) =>
    indexLine(ROW_ID, i + 2, cat, key(i < 16 ? i : i + 8)),
  );
  const map = new Map<string, Uint8Array>();
  const files = filesIn(map);
  const layout: GroupLayout = { dir: "warm-up", buckets: 1, previousBuckets: 1 };
  const group = { newBuckets: [0], previousBuckets: [0] };
  const newFile = path.join(layout.dir, keyBucketName(0));
  const previousFile = path.join(layout.dir, "previous.tsv");
  const results: GroupResult[] = [];
  for (const withTable of [true, false]) {
    putBucket(map, newFile, newLines, withTable);
    const bytes = putBucket(map, previousFile, previousLines, withTable);
    results.push(runGroup(layout, group, [previousFile], files));
    putBucket(map, newFile, newLines, withTable);
    results.push(runGroup(layout, group, [new Uint8Array(bytes)], files));
    putBucket(map, newFile, newLines, withTable);
    results.push(runGroup(layout, group, undefined, files));
  }
  return results;
}

let warmed = false;

/** Runs the warm-up once per thread (later calls return at once); true when this call ran it. */
export function warmUpKeyCheck(): boolean {
  if (warmed) return false;
  warmed = true;
  try {
    warmUpRuns();
  } catch {
    // Only a warm-up: the real check reports its own failures.
  }
  return true;
}
