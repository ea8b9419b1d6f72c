/**
 * Ingestion orchestrator: recovery → DQ config → inbox → gate/emit →
 * DQ → publication. The caller holds the supplier's lock: the engine lease
 * `snapshots:<supplier>` of the `snapshots.ingest` job type.
 */
import { describeError } from "tidemark";
import { HistoryRepo } from "../../repos/history-repo.ts";
import { loadSupplierConfig } from "../intake/config/load-supplier-config.ts";
import { fileLessResult, inboxSummary } from "../intake/inbox/file-less-result.ts";
import { selectInput } from "../intake/inbox/select-input.ts";
import { waitingReason } from "../intake/inbox/waiting-reason.ts";
import { checkSupplierName } from "../intake/layout/supplier-name.ts";
import { threadsForRun } from "../parse/early-threads.ts";
import { manifestKey } from "../publish/run-documents.ts";
import { loadReasonCodes } from "../quality/reason-codes/load-reason-codes.ts";
import { crashPoint } from "./crash-hook.ts";
import { failRun } from "./finish-run.ts";
import { planIngestion } from "./plan-run.ts";
import { processFile } from "./process-file.ts";
import { emptyRecoveryReport, recover } from "./recover.ts";
import type { IngestDeps, IngestResult, RunScope } from "./types.ts";

/**
 * Records the run under the id it was given: the engine run's id, so `runs show` knows the id
 * the manifest, artifacts and history carry. The primary key (and an existing manifest) refuse
 * a reused id rather than overwrite another run's records.
 */
async function startRun(deps: IngestDeps, history: HistoryRepo, supplier: string) {
  const startedAt = deps.clock.now().toISOString();
  const runId = deps.runId;
  const free = await history.tryStart({
    run_id: runId,
    supplier,
    engine_run_id: deps.engineRunId,
    started_at: startedAt,
  });
  if (!free || (await deps.storage.stat(manifestKey(runId)))) {
    throw new Error(`run id ${runId} is already used by an earlier snapshots run`);
  }
  return { runId, startedAt };
}

function noFileResult(scope: RunScope, status: "NO_INPUT", detail: string): IngestResult {
  return fileLessResult({
    supplier: scope.supplier,
    run_id: scope.runId,
    status,
    detail,
    inbox: scope.inbox,
    recovery: scope.recovery,
  });
}

/** Ingests the newest stable file of one supplier. Never publishes a FAIL. */
export async function ingestSupplier(
  deps: IngestDeps,
  supplierName: string,
): Promise<IngestResult> {
  const supplier = checkSupplierName(supplierName);
  loadReasonCodes();
  // A dry run writes nothing: no run row, no recovery, no move.
  if (deps.dryRun) return planIngestion(deps, supplier, deps.runId);
  const history = new HistoryRepo(deps.db);
  const { runId, startedAt } = await startRun(deps, history, supplier);
  const scope: RunScope = {
    deps,
    supplier,
    runId,
    startedAt,
    history,
    recovery: emptyRecoveryReport(),
    inbox: inboxSummary(undefined),
    threads: threadsForRun(supplier, deps.settings.workers),
  };
  try {
    return await ingest(scope);
  } catch (err) {
    await history
      .finish(runId, {
        status: "INTERRUPTED",
        finished_at: deps.clock.now().toISOString(),
        detail: describeError(err),
      })
      .catch(() => {});
    throw err;
  } finally {
    await scope.threads.close();
    await deps.storage.discardWorkDir(runId).catch(() => {});
  }
}

async function ingest(scope: RunScope): Promise<IngestResult> {
  const { deps, supplier, history } = scope;
  scope.recovery = await recover({
    storage: deps.storage,
    history,
    supplier,
    runId: scope.runId,
    now: deps.clock.now(),
  });
  const { repaired, removedOrphans, removedLeftovers } = scope.recovery;
  if (repaired.length + removedOrphans.length + removedLeftovers.length > 0) {
    deps.logger.warn({ supplier, recovery: scope.recovery }, "recovered from an interrupted run");
  }
  const loaded = loadSupplierConfig(deps.settings.configDir, supplier);
  if (!loaded.ok) return failRun(scope, { reason: loaded.reason, detail: loaded.detail });
  const cfg = loaded.config;
  scope.cfg = cfg;
  const selection = await selectInput(
    deps.storage,
    supplier,
    { windowSeconds: cfg.file_stability_window, atomicRename: cfg.atomic_rename },
    deps.clock.now(),
    true,
    undefined,
    (newest) => scope.threads.warmFor(cfg, newest),
  );
  scope.inbox = inboxSummary(selection);
  const observedAt = deps.clock.now().toISOString();
  const events = [
    ...selection.obsolete.map((f) => ({ f, disposition: "obsolete" as const })),
    ...selection.duplicates.map((f) => ({ f, disposition: "duplicate" as const })),
    ...(selection.chosen ? [{ f: selection.chosen, disposition: "selected" as const }] : []),
  ].sort((a, b) => a.f.entry.mtimeMs - b.f.entry.mtimeMs);
  await history.addInputEvents(
    events.map(({ f, disposition }) => ({
      supplier,
      run_id: scope.runId,
      observed_at: observedAt,
      filename: f.entry.name,
      sha256: f.sha256,
      disposition,
    })),
  );
  if (!selection.chosen) {
    await history.finish(scope.runId, {
      status: "NO_INPUT",
      finished_at: deps.clock.now().toISOString(),
    });
    const reason = waitingReason(selection, cfg.file_stability_window, deps.clock.now());
    return noFileResult(scope, "NO_INPUT", reason);
  }
  crashPoint("after-select");
  return processFile(scope, cfg, selection.chosen);
}
