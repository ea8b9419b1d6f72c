import path from "node:path";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import { type HashedFile, moveIfPresent } from "../intake/inbox/select-input.ts";
import { destinationDir, RUN_FILES } from "../intake/layout/tree.ts";
import { type Parsed, parseInput } from "../parse/parse-input.ts";
import type { dedupeAndDiff } from "../publish/artifacts/key-diff.ts";
import { publishState } from "../publish/publish-state.ts";
import { buildStats, type Stats } from "../publish/run-documents.ts";
import { decideDq } from "../quality/dq.ts";
import { GateFailure } from "../quality/emit/schema.ts";
import { checkKeys, type Ingested } from "./check-keys.ts";
import { crashPoint } from "./crash-hook.ts";
import { failRun, saveRunArtifacts, writeRunDocuments } from "./finish-run.ts";
import type { IngestResult, RunScope } from "./types.ts";

type KeyDiff = Awaited<ReturnType<typeof dedupeAndDiff>>["diff"];
type Published = Awaited<ReturnType<typeof publishState>>;

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
      directIo: scope.deps.settings.directIo,
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
