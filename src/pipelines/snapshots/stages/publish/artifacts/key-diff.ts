/**
 * One pass over the key index, bucket group by bucket group: finds duplicate keys in the new
 * snapshot (first occurrence wins) and compares it with the previous state (full snapshot: a
 * key absent from the new file is removed, i.e. its stock counts as 0). Memory: one group per
 * thread. Groups run on worker threads when asked (large files) and are merged in bucket
 * order, so the result is the same whichever thread ran which group.
 */
import {
  type DuplicateRow,
  type GroupLayout,
  type GroupReader,
  type GroupResult,
  groupsOf,
  type KeySample,
  runGroup,
  SAMPLES,
} from "./key-diff-group.ts";
import type { KeyDiffPool } from "./key-diff-pool.ts";

export type { DuplicateRow, KeySample } from "./key-diff-group.ts";

/** The previous state's index, read one bucket at a time. */
export interface PreviousIndex {
  runId: string;
  buckets: number;
  /** Bytes of one bucket file (empty or undefined when empty/absent). */
  read(bucket: number): Promise<Uint8Array | undefined>;
  /**
   * The bucket's file on this machine, when the state is stored here: the thread that checks
   * the bucket then reads it itself, into memory it reuses from one bucket to the next, instead
   * of this thread reading each bucket into new memory and handing it over.
   */
  localFile?(bucket: number): string;
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

function groupReader(previous: PreviousIndex | undefined): GroupReader {
  return async (group) => {
    if (!previous) return undefined;
    const { localFile } = previous;
    if (localFile) return group.previousBuckets.map((p) => localFile(p));
    return Promise.all(group.previousBuckets.map((p) => previous.read(p)));
  };
}

/** The groups' figures summed and their samples taken in bucket order, as one serial pass would. */
function mergeGroups(previousRunId: string | null, results: GroupResult[]) {
  const diff: SnapshotDiff = {
    previous_run_id: previousRunId,
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    samples: { added: [], removed: [], changed: [] },
  };
  const duplicates: DuplicateRow[] = [];
  for (const result of results) {
    for (const b of result.buckets) {
      diff.added += b.added;
      diff.removed += b.removed;
      diff.changed += b.changed;
      diff.unchanged += b.unchanged;
      for (const list of ["removed", "changed", "added"] as const) {
        const room = SAMPLES - diff.samples[list].length;
        if (room > 0) diff.samples[list].push(...b.samples[list].slice(0, room));
      }
    }
    duplicates.push(...result.duplicates);
  }
  duplicates.sort((x, y) => x.rowNumber - y.rowNumber || (x.identity < y.identity ? -1 : 1));
  return { diff, duplicates };
}

/**
 * Dedupes the new index in place (bucket files rewritten without duplicates) and diffs it
 * against `previous`. Returns the diff and the duplicates, in file order. With a `pool`, the
 * groups run on its worker threads.
 */
export async function dedupeAndDiff(
  dir: string,
  buckets: number,
  previous: PreviousIndex | undefined,
  pool?: KeyDiffPool,
): Promise<{ diff: SnapshotDiff; duplicates: DuplicateRow[] }> {
  const layout: GroupLayout = { dir, buckets, previousBuckets: previous?.buckets ?? buckets };
  const groups = groupsOf(buckets, layout.previousBuckets);
  const read = groupReader(previous);
  let results: GroupResult[];
  if (pool && groups.length > 1) {
    results = await pool.run(layout, groups, read);
  } else {
    results = [];
    for (const group of groups) results.push(runGroup(layout, group, await read(group)));
  }
  return mergeGroups(previous?.runId ?? null, results);
}
