import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { codeCommit } from "tidemark/kit";
import type { HashedFile } from "../intake/inbox/select-input.ts";
import { moveIfPresent } from "../intake/inbox/select-input.ts";
import { destinationDir, RUN_FILES, runDir } from "../intake/layout/tree.ts";
import { WORK_KEYS_DIR } from "../parse/parse-input.ts";
import {
  buildStats,
  documentText,
  type Manifest,
  manifestKey,
  type Stats,
} from "../publish/run-documents.ts";
import type { ReasonCode } from "../quality/reason-codes/reason-code.ts";
import type { IngestResult, RunScope } from "./types.ts";

/** Keys of a run's artifacts that exist. */
function artifactKeys(runId: string, workDir: string | undefined): Manifest["artifacts"] {
  const has = (name: string) => workDir !== undefined && existsSync(path.join(workDir, name));
  const key = (name: string) => `${runDir(runId)}/${name}`;
  return {
    facts: has(RUN_FILES.facts) ? key(RUN_FILES.facts) : null,
    bad: has(RUN_FILES.bad) ? key(RUN_FILES.bad) : null,
    stats: key(RUN_FILES.stats),
  };
}

/**
 * Saves a run's facts, bad rows and stats.json under runs/<run_id>/. A PASS does it before the
 * switch: a run killed after the switch leaves them for recovery to write the manifest from.
 */
export async function saveRunArtifacts(
  scope: RunScope,
  stats: Stats,
  workDir: string | undefined,
): Promise<void> {
  const names = [RUN_FILES.facts, RUN_FILES.bad].filter(
    (n) => workDir !== undefined && existsSync(path.join(workDir, n)),
  );
  await scope.deps.storage.saveRunFiles(scope.runId, names);
  await writeStats(scope, stats);
}

const writeStats = (scope: RunScope, stats: Stats) =>
  scope.deps.storage.writeText(`${runDir(scope.runId)}/${RUN_FILES.stats}`, documentText(stats));

/**
 * Writes stats.json and manifest.json of a run (stats first: the manifest closes the run), and
 * its facts and bad rows unless `saved` (saveRunArtifacts did, before the switch).
 */
export async function writeRunDocuments(
  scope: RunScope,
  stats: Stats,
  manifest: Omit<
    Manifest,
    "run_id" | "supplier" | "started_at" | "code_commit" | "artifacts" | "engine_run_id"
  >,
  workDir: string | undefined,
  saved = false,
): Promise<string> {
  const { storage } = scope.deps;
  if (workDir) await rm(path.join(workDir, WORK_KEYS_DIR), { recursive: true, force: true });
  if (saved) await writeStats(scope, stats);
  else await saveRunArtifacts(scope, stats, workDir);
  const full: Manifest = {
    run_id: scope.runId,
    supplier: scope.supplier,
    input_filename: manifest.input_filename,
    input_sha256: manifest.input_sha256,
    started_at: scope.startedAt,
    finished_at: manifest.finished_at,
    good_rows: manifest.good_rows,
    bad_rows: manifest.bad_rows,
    status: manifest.status,
    code_commit: codeCommit(),
    fail_reason: manifest.fail_reason,
    fail_detail: manifest.fail_detail,
    total_rows: manifest.total_rows,
    bad_ratio: manifest.bad_ratio,
    input_size: manifest.input_size,
    input_moved_to: manifest.input_moved_to,
    state_path: manifest.state_path,
    previous_state_run_id: manifest.previous_state_run_id,
    engine_run_id: scope.deps.engineRunId,
    artifacts: artifactKeys(scope.runId, workDir),
  };
  await storage.writeText(manifestKey(scope.runId), documentText(full));
  return manifestKey(scope.runId);
}

/** Empty stats for a run that FAILed before any row was read. */
export function emptyStats(
  scope: RunScope,
  input: Record<string, unknown>,
  reason: ReasonCode,
): Stats {
  const cfg = scope.cfg;
  return buildStats({
    runId: scope.runId,
    supplier: scope.supplier,
    totals: { total: 0, good: 0, bad: 0 },
    byCategory: new Map(),
    byReason: new Map(),
    diff: null,
    dq: {
      min_fact_count: cfg?.min_fact_count ?? 0,
      max_bad_ratio: cfg?.max_bad_ratio ?? 0,
      allow_empty_snapshot: cfg?.allow_empty_snapshot ?? false,
      status: reason.startsWith("DQ_") ? "FAIL" : "NOT_REACHED",
      reason_code: reason.startsWith("DQ_") ? reason : null,
    },
    input,
  });
}

/**
 * Ends a run as FAIL: the input goes to quarantine/<s>/broken/ (config failures leave it
 * in the inbox: the file is not at fault), nothing is published, manifest status=FAIL.
 */
export async function failRun(
  scope: RunScope,
  f: {
    reason: ReasonCode;
    detail: string;
    input?: HashedFile;
    stats?: Stats;
    workDir?: string;
  },
): Promise<IngestResult> {
  const { storage, clock } = scope.deps;
  const movedTo =
    f.input && !f.reason.startsWith("CONFIG_")
      ? await moveIfPresent(storage, f.input.entry.key, destinationDir(scope.supplier, "broken"))
      : null;
  const input = {
    filename: f.input?.entry.name ?? null,
    sha256: f.input?.sha256 ?? null,
    size: f.input?.entry.size ?? null,
  };
  const stats = f.stats ?? emptyStats(scope, input, f.reason);
  const finishedAt = clock.now().toISOString();
  const manifestPath = await writeRunDocuments(
    scope,
    stats,
    {
      input_filename: input.filename,
      input_sha256: input.sha256,
      finished_at: finishedAt,
      good_rows: stats.good_rows,
      bad_rows: stats.bad_rows,
      status: "FAIL",
      fail_reason: f.reason,
      fail_detail: f.detail,
      total_rows: stats.total_rows,
      bad_ratio: stats.bad_ratio,
      input_size: input.size,
      input_moved_to: movedTo,
      state_path: null,
      previous_state_run_id: stats.diff?.previous_run_id ?? null,
    },
    f.workDir,
  );
  await scope.history.finish(scope.runId, {
    status: "FAIL",
    finished_at: finishedAt,
    reason_code: f.reason,
    detail: f.detail,
    input_filename: input.filename,
    input_sha256: input.sha256,
    good_rows: stats.good_rows,
    bad_rows: stats.bad_rows,
  });
  scope.deps.logger.info(
    { supplier: scope.supplier, snapshot_run_id: scope.runId, reason_code: f.reason },
    `FAIL: ${f.detail}`,
  );
  return {
    supplier: scope.supplier,
    run_id: scope.runId,
    status: "FAIL",
    reason_code: f.reason,
    detail: f.detail,
    input_filename: input.filename,
    input_sha256: input.sha256,
    total_rows: stats.total_rows,
    good_rows: stats.good_rows,
    bad_rows: stats.bad_rows,
    bad_ratio: stats.bad_ratio,
    diff: null,
    state_path: null,
    manifest_path: manifestPath,
    input_moved_to: movedTo,
    inbox: scope.inbox,
    recovery: scope.recovery,
  };
}
