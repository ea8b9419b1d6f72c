/**
 * Dedupe and diff of one bucket group: the new snapshot's buckets that need the same previous
 * buckets (see groupsOf). Synchronous and self-contained, so a group runs on this thread or on
 * a worker thread alike; the caller merges the groups' results in bucket order.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { keyBucketName } from "../../intake/layout/tree.ts";
import { BucketScratch } from "./bucket-scratch.ts";
import { describeIdentity, KEY_ROW_ID_CHARS, parseIndexLine } from "./key-index.ts";
import { IdentityTable, type IndexLines, indexLines, sameBytes } from "./key-lines.ts";
import { linesFromTable, lineTableOf, tableOf } from "./line-table.ts";

/** A key reported in samples. */
export interface KeySample {
  category_key?: string;
  key: unknown;
}

/** A later occurrence of a key already seen in this file. */
export interface DuplicateRow {
  rowNumber: number;
  /** `category_json \t key_json`. */
  identity: string;
}

const NL = Buffer.from("\n");

/** Samples kept per list (in the diff, and per bucket on the way there). */
export const SAMPLES = 10;

/** What one new bucket added to the diff. */
export interface BucketDiff {
  bucket: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  samples: { added: KeySample[]; removed: KeySample[]; changed: KeySample[] };
}

/** A group's figures, bucket by bucket, and its duplicates. */
export interface GroupResult {
  buckets: BucketDiff[];
  duplicates: DuplicateRow[];
}

/** The bucket layout both sides share. */
export interface GroupLayout {
  /** Folder of the new key index (bucket files are rewritten there without duplicates). */
  dir: string;
  buckets: number;
  /** Bucket count of the previous state's index (= buckets when there is none). */
  previousBuckets: number;
}

/** A group: one base, its new buckets and the previous buckets they need, in reading order. */
export interface BucketGroup {
  newBuckets: number[];
  previousBuckets: number[];
}

/**
 * A previous bucket as handed to a group: its bytes, or the path of its local file for the
 * thread running the group to read into memory it reuses (no file: an empty bucket), or
 * undefined for an empty bucket.
 */
export type PreviousBucket = Uint8Array | string | undefined;

/** Reads the previous buckets a group needs (undefined: there is no previous state). */
export type GroupReader = (group: BucketGroup) => Promise<PreviousBucket[] | undefined>;

/**
 * The groups, in the order the serial pass visits them: each previous bucket is needed by
 * exactly one group, so groups run independently.
 */
export function groupsOf(buckets: number, previousBuckets: number): BucketGroup[] {
  const step = Math.min(previousBuckets, buckets);
  const groups: BucketGroup[] = [];
  for (let base = 0; base < step; base++) {
    const newBuckets: number[] = [];
    for (let b = base; b < buckets; b += step) newBuckets.push(b);
    const previous: number[] = [];
    if (previousBuckets >= buckets)
      for (let p = base; p < previousBuckets; p += buckets) previous.push(p);
    else previous.push(base);
    groups.push({ newBuckets, previousBuckets: previous });
  }
  return groups;
}

function emptyBucketDiff(bucket: number): BucketDiff {
  return {
    bucket,
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    samples: { added: [], removed: [], changed: [] },
  };
}

function sample(list: KeySample[], l: IndexLines, k: number): void {
  list.push(describeIdentity(l.text.toString("utf8", l.idStart[k]!, l.idEnd[k]!)));
}

/**
 * Where a group's files are read (into memory reused from one bucket to the next) and written:
 * the disk, unless the key check's warm-up runs it on files of its own in memory.
 */
export interface GroupFiles {
  /** For the new buckets. */
  scratch: BucketScratch;
  /** For the previous buckets read from local files. */
  previousScratch: BucketScratch;
  write(file: string, data: Uint8Array): void;
}

/** This thread's: the disk. */
const onDisk: GroupFiles = {
  scratch: new BucketScratch(),
  previousScratch: new BucketScratch(),
  write: (file, data) => writeFileSync(file, data),
};

/**
 * The lines of a previous bucket: located from its published line table when there is one
 * that fits its text, else by reading (and hashing) the text.
 */
function previousLines(bucket: PreviousBucket, { previousScratch }: GroupFiles): IndexLines {
  if (typeof bucket === "string") {
    const text = previousScratch.optionalText(bucket) ?? Buffer.alloc(0);
    const arrays = (n: number) => previousScratch.lineArrays(n);
    const table = previousScratch.table(lineTableOf(bucket));
    return (table && linesFromTable(text, table, arrays)) ?? indexLines(text, arrays);
  }
  const bytes = bucket ?? new Uint8Array(0);
  return indexLines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** Adds every line to the table; marks later occurrences of an identity (state 1): how many. */
function markDuplicates(table: IdentityTable, state: Uint8Array, count: number): number {
  let dups = 0;
  for (let k = 0; k < count; k++) {
    if (table.add(k) < 0) continue;
    state[k] = 1;
    dups++;
  }
  return dups;
}

/** Lists the duplicates and rewrites the bucket file (and its line table) without them. */
function dropDuplicates(
  file: string,
  lines: IndexLines,
  state: Uint8Array,
  duplicates: DuplicateRow[],
  write: GroupFiles["write"],
) {
  const kept: Buffer[] = [];
  for (let k = 0; k < lines.count; k++) {
    if (state[k] !== 1) {
      kept.push(lines.text.subarray(lines.start[k]!, lines.idEnd[k]!), NL);
      continue;
    }
    const line = lines.text.toString("utf8", lines.start[k]!, lines.idEnd[k]!);
    duplicates.push({
      rowNumber: parseIndexLine(line).rowNumber,
      identity: lines.text.toString("utf8", lines.idStart[k]!, lines.idEnd[k]!),
    });
  }
  write(file, Buffer.concat(kept));
  write(
    lineTableOf(file),
    tableOf(lines, (k) => state[k] !== 1),
  );
}

/**
 * Dedupes one new bucket in place (first occurrence wins; the file is rewritten without the
 * later ones); returns its lines, their table and which lines were duplicates. The lines are
 * located from the bucket's line table when the parse wrote one, else by reading the text.
 * `diffed`: previous lines will be looked up in the table (it gets a miss filter for them).
 */
function dedupeBucket(
  file: string,
  duplicates: DuplicateRow[],
  diffed: boolean,
  { scratch, write }: GroupFiles,
) {
  const text = scratch.text(file);
  const written = scratch.table(lineTableOf(file));
  const lines =
    (written && linesFromTable(text, written, (n) => scratch.lineArrays(n))) ?? indexLines(text);
  const table = new IdentityTable(lines, (n) => scratch.slots(n));
  const state = scratch.states(lines.count); // 1 = duplicate, 2 = matched in previous
  if (markDuplicates(table, state, lines.count) > 0)
    dropDuplicates(file, lines, state, duplicates, write);
  if (diffed) table.addMissFilter((n) => scratch.filterWords(n));
  return { lines, table, state };
}

/**
 * Lines picked as samples while a hot loop runs (their numbers), turned into samples by the
 * caller afterwards: the loops stay free of the code that makes a sample, which the compiler
 * would otherwise inline into them (a larger compilation, and one more way to deoptimize).
 */
interface Picks {
  removed: number[];
  changed: number[];
  added: number[];
}

/** Compares one previous bucket's lines with new bucket b's. */
function diffAgainst(
  out: BucketDiff,
  prev: IndexLines,
  b: number,
  layout: GroupLayout,
  bucket: ReturnType<typeof dedupeBucket>,
  picks: Picks,
): void {
  const { lines, table, state } = bucket;
  const narrower = layout.previousBuckets < layout.buckets;
  for (let j = 0; j < prev.count; j++) {
    const h = prev.hash[j]!;
    if (narrower && (h & (layout.buckets - 1)) !== b) continue;
    const k = table.find(prev, j);
    if (k < 0) {
      if (out.removed++ < SAMPLES) picks.removed.push(j);
      continue;
    }
    state[k] = 2;
    // Same row_id prefix (the part before the first tab) = same payload.
    const ks = lines.start[k]!;
    const js = prev.start[j]!;
    if (sameBytes(lines, ks, ks + KEY_ROW_ID_CHARS, prev, js, js + KEY_ROW_ID_CHARS)) {
      out.unchanged++;
    } else if (out.changed++ < SAMPLES) {
      picks.changed.push(k);
    }
  }
}

/** Counts (and picks) the new lines no previous line matched and that are no duplicates. */
function countAdded(out: BucketDiff, lines: IndexLines, state: Uint8Array, picks: Picks): void {
  for (let k = 0; k < lines.count; k++) {
    if (state[k] === 0 && out.added++ < SAMPLES) picks.added.push(k);
  }
}

/** Appends the picked lines to `into` as samples, and empties `picked`. */
function takeSamples(into: KeySample[], picked: number[], lines: IndexLines): void {
  for (const k of picked) sample(into, lines, k);
  picked.length = 0;
}

/**
 * Runs one group. `previous` holds the group's previous buckets in `group.previousBuckets`
 * order (empty when there is no previous state).
 */
export function runGroup(
  layout: GroupLayout,
  group: BucketGroup,
  previous: readonly PreviousBucket[] | undefined,
  files: GroupFiles = onDisk,
): GroupResult {
  const result: GroupResult = { buckets: [], duplicates: [] };
  // Several new buckets share one previous bucket (index it once: groupsOf gives such a group
  // that one previous bucket only, so its lines stay valid in previousScratch); one new bucket
  // may need several previous ones (index each when its turn comes: one in memory at a time).
  const shared = group.newBuckets.length > 1;
  const cache: Array<IndexLines | undefined> = [];
  const linesOf = (i: number) => {
    const lines = cache[i] ?? previousLines(previous?.[i], files);
    if (shared) cache[i] = lines;
    return lines;
  };
  for (const b of group.newBuckets) {
    const out = emptyBucketDiff(b);
    const bucket = dedupeBucket(
      path.join(layout.dir, keyBucketName(b)),
      result.duplicates,
      (previous?.length ?? 0) > 0,
      files,
    );
    const picks: Picks = { removed: [], changed: [], added: [] };
    for (let i = 0; i < (previous?.length ?? 0); i++) {
      const prev = linesOf(i);
      diffAgainst(out, prev, b, layout, bucket, picks);
      // Before the next previous bucket takes the memory these lines are in.
      takeSamples(out.samples.removed, picks.removed, prev);
      takeSamples(out.samples.changed, picks.changed, bucket.lines);
    }
    countAdded(out, bucket.lines, bucket.state, picks);
    takeSamples(out.samples.added, picks.added, bucket.lines);
    result.buckets.push(out);
  }
  return result;
}
