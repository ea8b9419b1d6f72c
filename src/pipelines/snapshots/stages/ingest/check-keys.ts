/**
 * The key check of a parsed file: later occurrences of a key moved to the bad rows, and the
 * full-snapshot diff against the published state, on the threads the parse handed back; the
 * facts and the key index reach the disk meanwhile.
 */
import path from "node:path";
import type { HashedFile } from "../intake/inbox/select-input.ts";
import { keyBucketName, RUN_FILES, STATE_FILES } from "../intake/layout/tree.ts";
import { PARALLEL_MIN_BYTES, type Parsed, WORK_KEYS_DIR } from "../parse/parse-input.ts";
import { dropFacts } from "../publish/artifacts/drop-facts.ts";
import { dedupeAndDiff, type PreviousIndex } from "../publish/artifacts/key-diff.ts";
import { KeyDiffPool } from "../publish/artifacts/key-diff-pool.ts";
import { describeIdentity } from "../publish/artifacts/key-index.ts";
import { LineSink } from "../publish/artifacts/line-sink.ts";
import { lineTableOf, removeLineTables } from "../publish/artifacts/line-table.ts";
import type { SnapshotStorage, StatePointer } from "../publish/storage/snapshot-storage.ts";
import type { RunScope } from "./types.ts";

/**
 * Whether the state keeps the line tables beside its buckets (storage on this machine: the next
 * run's check reads them there); otherwise they are deleted once the check is done.
 */
const keepsLineTables = (storage: SnapshotStorage) => storage.localFile !== undefined;

/** The bucket files of a key index folder. */
const bucketFiles = (dir: string, buckets: number) =>
  Array.from({ length: buckets }, (_, b) => path.join(dir, keyBucketName(b)));

/** Reads a published state's key index, bucket by bucket. */
export function previousIndex(storage: SnapshotStorage, pointer: StatePointer): PreviousIndex {
  const key = (b: number) => `${pointer.state_path}/${STATE_FILES.keysDir}/${keyBucketName(b)}`;
  const local = storage.localFile?.bind(storage);
  return {
    runId: pointer.run_id,
    buckets: pointer.key_buckets,
    read: (b) => storage.readBytes(key(b)),
    localFile: local && ((b) => local(key(b))),
  };
}

/** Moves later occurrences of a key from the facts to bad.ndjson (DUPLICATE_KEY). */
async function removeDuplicates(
  parsed: Parsed,
  workDir: string,
  duplicates: Awaited<ReturnType<typeof dedupeAndDiff>>["duplicates"],
): Promise<void> {
  if (duplicates.length === 0) return;
  const bad = new LineSink(path.join(workDir, RUN_FILES.bad), true);
  parsed.emitter.attachBad(bad);
  try {
    for (const d of duplicates) {
      const { category_key, key } = describeIdentity(d.identity);
      parsed.emitter.reclassify(category_key, d.rowNumber, "DUPLICATE_KEY", key);
    }
  } finally {
    bad.close();
  }
  const positions = new Set(
    duplicates.map((d) => `${d.identity.slice(0, d.identity.indexOf("\t"))}\t${d.rowNumber}`),
  );
  await dropFacts(path.join(workDir, RUN_FILES.facts), positions);
}

/** What the phases after parsing share. */
export interface Ingested {
  chosen: HashedFile;
  parsed: Parsed;
  workDir: string;
}

/**
 * Dedupes the keys and diffs them against the published state's; a large CSV file's on worker
 * threads (two at most: the check reads about as much as it computes): the CSV workers its
 * parse left idle. Then the run's threads are being stopped, warm ones nobody took included.
 */
export async function checkKeys(scope: RunScope, file: Ingested) {
  const { settings } = scope.deps;
  const threaded = file.parsed.format === "csv" && file.chosen.entry.size >= PARALLEL_MIN_BYTES;
  const threads = threaded ? Math.min(2, settings.workers) : 0;
  const pool = threads > 0 ? new KeyDiffPool(threads, scope.threads.csv) : undefined;
  try {
    return await dedupeAndDrop(scope, file, pool);
  } finally {
    // The run waits for them when it ends (ingestSupplier), not before it publishes.
    scope.threads.stopSoon(pool);
  }
}

/** The check itself, later occurrences of a key moved from the facts to the bad rows. */
async function dedupeAndDrop(scope: RunScope, file: Ingested, pool: KeyDiffPool | undefined) {
  const { storage } = scope.deps;
  const { parsed, workDir } = file;
  const keysDir = path.join(workDir, WORK_KEYS_DIR);
  const flushing = flushWhileChecking(
    storage,
    path.join(workDir, RUN_FILES.facts),
    keysDir,
    parsed,
  );
  const previous = await storage.readCurrent(scope.supplier);
  const { diff, duplicates } = await dedupeAndDiff(
    keysDir,
    parsed.buckets,
    previous ? previousIndex(storage, previous) : undefined,
    pool,
  );
  await removeDuplicates(parsed, workDir, duplicates);
  await flushing;
  if (!keepsLineTables(storage)) await removeLineTables(bucketFiles(keysDir, parsed.buckets));
  return { diff, keysDir };
}

/**
 * The facts (hundreds of MB) and the key index reach the disk while the index is checked, not
 * one file after another when the state is sealed (a bucket the check rewrites without its
 * duplicates is synced again then). Two lanes, the facts and the buckets one after another: the
 * syncs wait in the I/O thread pool, which the check's reads of the previous state share (17
 * syncs at once made those reads queue, and the diff run's check ~90 ms slower).
 */
async function flushWhileChecking(
  storage: SnapshotStorage,
  facts: string,
  keysDir: string,
  parsed: Parsed,
): Promise<void> {
  const flush = storage.flushAhead?.bind(storage);
  if (!flush) return;
  const buckets = async () => {
    for (const file of bucketFiles(keysDir, parsed.buckets)) {
      await flush(file);
      if (keepsLineTables(storage)) await flush(lineTableOf(file));
    }
  };
  await Promise.all([flush(facts), buckets()]);
}
