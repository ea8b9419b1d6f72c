import path from "node:path";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import { type HashedFile, moveIfPresent } from "../intake/inbox/select-input.ts";
import { destinationDir, keyBucketName, RUN_FILES, STATE_FILES } from "../intake/layout/tree.ts";
import {
  PARALLEL_MIN_BYTES,
  type Parsed,
  parseInput,
  WORK_KEYS_DIR,
} from "../parse/parse-input.ts";
import { dropFacts } from "../publish/artifacts/drop-facts.ts";
import { dedupeAndDiff, type PreviousIndex } from "../publish/artifacts/key-diff.ts";
import { KeyDiffPool } from "../publish/artifacts/key-diff-pool.ts";
import { describeIdentity } from "../publish/artifacts/key-index.ts";
import { LineSink } from "../publish/artifacts/line-sink.ts";
import { publishState } from "../publish/publish-state.ts";
import { buildStats, type Stats } from "../publish/run-documents.ts";
import type { SnapshotStorage, StatePointer } from "../publish/storage/snapshot-storage.ts";
import { decideDq } from "../quality/dq.ts";
import { GateFailure } from "../quality/emit/schema.ts";
import { crashPoint } from "./crash-hook.ts";
import { failRun, saveRunArtifacts, writeRunDocuments } from "./finish-run.ts";
import type { IngestResult, RunScope } from "./types.ts";

/** Reads a published state's key index, bucket by bucket. */
export function previousIndex(storage: SnapshotStorage, pointer: StatePointer): PreviousIndex {
  return {
    runId: pointer.run_id,
    buckets: pointer.key_buckets,
    read: (b) =>
      storage.readBytes(`${pointer.state_path}/${STATE_FILES.keysDir}/${keyBucketName(b)}`),
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

type KeyDiff = Awaited<ReturnType<typeof dedupeAndDiff>>["diff"];
type Published = Awaited<ReturnType<typeof publishState>>;

/** What the phases after parsing share. */
interface Ingested {
  chosen: HashedFile;
  parsed: Parsed;
  workDir: string;
}

/**
 * Gate → emit → dedupe/diff → DQ → publish, for the chosen file. Returns PASS or FAIL; an
 * unexpected error (a bug, storage outage, abort) propagates and nothing is published.
 */
export async function processFile(
  scope: RunScope,
  cfg: SupplierConfig,
  chosen: HashedFile,
): Promise<IngestResult> {
  const { storage } = scope.deps;
  const workDir = await storage.runWorkDir(scope.runId);
  const t0 = performance.now();
  let parsed: Parsed;
  try {
    parsed = await parseInput({
      storage,
      key: chosen.entry.key,
      sha256: chosen.sha256,
      cfg,
      workDir,
      runId: scope.runId,
      supplier: scope.supplier,
      signal: scope.deps.signal,
      workers: scope.deps.settings.workers,
      threads: scope.threads,
    });
  } catch (err) {
    if (!(err instanceof GateFailure)) throw err;
    return failRun(scope, { reason: err.reason, detail: err.detail, input: chosen, workDir });
  }
  const file: Ingested = { chosen, parsed, workDir };
  const t1 = performance.now();
  const { diff, keysDir } = await checkKeys(scope, file);
  const t2 = performance.now();
  const { totals } = parsed.emitter;
  const dq = decideDq(cfg, totals.good, totals.bad);
  const stats = fileStats(scope, cfg, file, diff, dq);
  stats.timing_ms = { parse: Math.round(t1 - t0), keys: Math.round(t2 - t1), publish: 0 };
  if (!dq.pass) {
    return failRun(scope, { reason: dq.reason, detail: dq.detail, input: chosen, stats, workDir });
  }
  const pointer = await publishFile(scope, file, stats, keysDir);
  stats.timing_ms.publish = Math.round(performance.now() - t2);
  scope.deps.logger.debug({ timing_ms: stats.timing_ms }, "ingestion phases");
  return finishPass(scope, file, stats, diff, pointer);
}

/**
 * Dedupes the keys and diffs them against the published state's; a large CSV file's on worker
 * threads (two at most: the check reads about as much as it computes): the CSV workers its
 * parse left idle. Then the run's threads are stopped, warm ones nobody took included.
 */
async function checkKeys(scope: RunScope, file: Ingested) {
  const { settings } = scope.deps;
  const threaded = file.parsed.format === "csv" && file.chosen.entry.size >= PARALLEL_MIN_BYTES;
  const threads = threaded ? Math.min(2, settings.workers) : 0;
  const pool = threads > 0 ? new KeyDiffPool(threads, scope.threads.csv) : undefined;
  try {
    return await dedupeAndDrop(scope, file, pool);
  } finally {
    await pool?.close();
    await scope.threads.close();
  }
}

/** The check itself, later occurrences of a key moved from the facts to the bad rows. */
async function dedupeAndDrop(scope: RunScope, file: Ingested, pool: KeyDiffPool | undefined) {
  const { storage } = scope.deps;
  const { parsed, workDir } = file;
  const keysDir = path.join(workDir, WORK_KEYS_DIR);
  // The facts (hundreds of MB) and the key index reach the disk while the index is checked,
  // not one file after another when the state is sealed (a bucket the check rewrites without
  // its duplicates is synced again then).
  const written = [path.join(workDir, RUN_FILES.facts)];
  for (let b = 0; b < parsed.buckets; b++) written.push(path.join(keysDir, keyBucketName(b)));
  const flushing = storage.flushAhead
    ? Promise.all(written.map((f) => storage.flushAhead?.(f)))
    : undefined;
  const previous = await storage.readCurrent(scope.supplier);
  const { diff, duplicates } = await dedupeAndDiff(
    keysDir,
    parsed.buckets,
    previous ? previousIndex(storage, previous) : undefined,
    pool,
  );
  await removeDuplicates(parsed, workDir, duplicates);
  await flushing;
  return { diff, keysDir };
}

/** The run's figures, with the DQ verdict. */
function fileStats(
  scope: RunScope,
  cfg: SupplierConfig,
  { chosen, parsed }: Ingested,
  diff: KeyDiff,
  dq: ReturnType<typeof decideDq>,
): Stats {
  return buildStats({
    runId: scope.runId,
    supplier: scope.supplier,
    totals: parsed.emitter.totals,
    byCategory: parsed.emitter.byCategory,
    byReason: parsed.emitter.byReason,
    diff,
    dq: {
      min_fact_count: cfg.min_fact_count,
      max_bad_ratio: cfg.max_bad_ratio,
      allow_empty_snapshot: cfg.allow_empty_snapshot,
      status: dq.pass ? "PASS" : "FAIL",
      reason_code: dq.pass ? null : dq.reason,
    },
    input: {
      filename: chosen.entry.name,
      sha256: chosen.sha256,
      size: parsed.bytes,
      format: parsed.format,
      encoding: parsed.encoding,
      sheets: parsed.sheets?.sheets,
      skipped_sheets: parsed.sheets?.skipped_sheets,
    },
  });
}

/** Saves the run's artifacts, then switches the supplier's state to this run's. */
async function publishFile(
  scope: RunScope,
  { chosen, parsed, workDir }: Ingested,
  stats: Stats,
  keysDir: string,
): Promise<Published> {
  const { storage, clock } = scope.deps;
  // Before the switch: a run killed after it leaves recovery its figures and diff.
  await saveRunArtifacts(scope, stats, workDir);
  crashPoint("before-state");
  return publishState({
    storage,
    workDir,
    factsFile: path.join(workDir, RUN_FILES.facts),
    keysDir,
    publication: {
      run_id: scope.runId,
      supplier: scope.supplier,
      input_filename: chosen.entry.name,
      input_sha256: chosen.sha256,
      fact_count: parsed.emitter.totals.good,
      multi_category: parsed.multiCategory,
      key_buckets: parsed.buckets,
      created_at: clock.now().toISOString(),
    },
    now: () => clock.now(),
    commit: scope.deps.commit,
  });
}

/** After publishing: archive the input, write the run's documents and history, report PASS. */
async function finishPass(
  scope: RunScope,
  { chosen, parsed, workDir }: Ingested,
  stats: Stats,
  diff: KeyDiff,
  pointer: Published,
): Promise<IngestResult> {
  const { storage, clock } = scope.deps;
  crashPoint("before-archive");
  // Fenced too: a run that lost its lease after publishing leaves the archive move to the
  // next run's recovery instead of racing it (which archived one input twice).
  const commit = scope.deps.commit ?? ((effect) => effect());
  const movedTo = await commit(() =>
    moveIfPresent(storage, chosen.entry.key, destinationDir(scope.supplier, "accepted")),
  );
  const finishedAt = clock.now().toISOString();
  const manifestPath = await writeRunDocuments(
    scope,
    stats,
    {
      input_filename: chosen.entry.name,
      input_sha256: chosen.sha256,
      finished_at: finishedAt,
      good_rows: stats.good_rows,
      bad_rows: stats.bad_rows,
      status: "PASS",
      fail_reason: null,
      fail_detail: null,
      total_rows: stats.total_rows,
      bad_ratio: stats.bad_ratio,
      input_size: parsed.bytes,
      input_moved_to: movedTo,
      state_path: pointer.state_path,
      previous_state_run_id: diff.previous_run_id,
    },
    workDir,
    true,
  );
  await scope.history.finish(scope.runId, {
    status: "PASS",
    finished_at: finishedAt,
    published_at: pointer.published_at,
    input_filename: chosen.entry.name,
    input_sha256: chosen.sha256,
    good_rows: stats.good_rows,
    bad_rows: stats.bad_rows,
    added: diff.added,
    removed: diff.removed,
    changed: diff.changed,
  });
  const { samples: _samples, ...diffCounts } = diff;
  return {
    supplier: scope.supplier,
    run_id: scope.runId,
    status: "PASS",
    reason_code: null,
    detail: null,
    input_filename: chosen.entry.name,
    input_sha256: chosen.sha256,
    total_rows: stats.total_rows,
    good_rows: stats.good_rows,
    bad_rows: stats.bad_rows,
    bad_ratio: stats.bad_ratio,
    diff: diffCounts,
    state_path: pointer.state_path,
    manifest_path: manifestPath,
    input_moved_to: movedTo,
    inbox: scope.inbox,
    recovery: scope.recovery,
  };
}
