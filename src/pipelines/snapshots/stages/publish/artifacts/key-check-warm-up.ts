/**
 * Type feedback for the key check before its first real bucket: a tiny key index (a few lines,
 * in a folder of its own inside the run's key index folder) run through runGroup every way a
 * thread runs it — a new bucket with and without its line table, a duplicate, a previous bucket
 * as a local file with and without its table and as bytes, keys added, removed, changed and
 * unchanged.
 *
 * Why: V8 optimizes a hot loop while it runs (on-stack replacement) from the types it has seen
 * so far, and code after the loop that no line has reached yet has none. On the 1M bench file
 * the optimized code of the check's loops was thrown away at the end of nearly every bucket and
 * compiled again: ~250 ms of compiler work on the two cores while the check ran. Interpreted,
 * these few dozen lines cost a few milliseconds; they are never optimized, only observed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { keyBucketName } from "../../intake/layout/tree.ts";
import { type GroupLayout, runGroup } from "./key-diff-group.ts";
import { indexLine } from "./key-index.ts";
import { indexLines } from "./key-lines.ts";
import { lineTableOf, tableOf } from "./line-table.ts";

const ROW_ID = "0123456789abcdef";
const OTHER_ROW_ID = "fedcba9876543210";

/** Writes a bucket file (and its line table, when asked); returns its text. */
function writeBucket(file: string, lines: string[], withTable: boolean): Buffer {
  const text = Buffer.from(lines.join(""));
  writeFileSync(file, text);
  if (withTable)
    writeFileSync(
      lineTableOf(file),
      tableOf(indexLines(text), () => true),
    );
  else rmSync(lineTableOf(file), { force: true });
  return text;
}

let warmed = false;

/**
 * Runs the warm-up once per thread (later calls return at once); true when this call ran it.
 * Never throws. Its files go in a new folder inside `keysDir` (the run's key index folder),
 * gone when it returns. A thread stopped in the middle (the check failed on the other thread,
 * and the run stops both) leaves them there with the run's other work files, never in the
 * machine's temp folder.
 */
export function warmUpKeyCheck(keysDir: string): boolean {
  if (warmed) return false;
  warmed = true;
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(keysDir, "warm-up-"));
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
    const layout: GroupLayout = { dir, buckets: 1, previousBuckets: 1 };
    const group = { newBuckets: [0], previousBuckets: [0] };
    const newFile = path.join(dir, keyBucketName(0));
    const previousFile = path.join(dir, "previous.tsv");
    for (const withTable of [true, false]) {
      writeBucket(newFile, newLines, withTable);
      const bytes = writeBucket(previousFile, previousLines, withTable);
      runGroup(layout, group, [previousFile]);
      writeBucket(newFile, newLines, withTable);
      runGroup(layout, group, [new Uint8Array(bytes)]);
      writeBucket(newFile, newLines, withTable);
      runGroup(layout, group, undefined);
    }
  } catch {
    // Only a warm-up: the real check reports its own failures.
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return true;
}
