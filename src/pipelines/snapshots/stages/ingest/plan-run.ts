/**
 * A dry run (`snapshots run --dry-run`, `tidemark run <job> --dry-run`): what a real run would
 * do, read from the tree, the supplier config and the history, writing nothing (no run row, no
 * recovery, no file move). It predicts recovery first, since a real run starts with it.
 */
import type { Clock, Database } from "tidemark";
import { HistoryRepo } from "../../repos/history-repo.ts";
import type { SnapshotSettings } from "../../settings.ts";
import { loadSupplierConfig } from "../intake/config/load-supplier-config.ts";
import { fileLessResult, inboxSummary } from "../intake/inbox/file-less-result.ts";
import { hashStored, type Selection, selectInput } from "../intake/inbox/select-input.ts";
import { inboxDir } from "../intake/layout/tree.ts";
import type { SnapshotStorage } from "../publish/storage/snapshot-storage.ts";
import { findLeftovers } from "./dead-run-leftovers.ts";
import {
  emptyRecoveryReport,
  findOrphanStates,
  pendingRepairs,
  type RecoveryReport,
} from "./recover.ts";
import type { IngestResult } from "./types.ts";

/** What a dry run reads. */
export interface PlanDeps {
  storage: SnapshotStorage;
  settings: SnapshotSettings;
  db: Database;
  clock: Clock;
}

/** Recovery a real run would do first, and the input SHA it would mark accepted. */
async function previewRecovery(d: PlanDeps, supplier: string) {
  const history = new HistoryRepo(d.db);
  const report: RecoveryReport = emptyRecoveryReport();
  report.interrupted = await history.runningRuns(supplier);
  const current = await d.storage.readCurrent(supplier);
  const accepted = new Set<string>();
  if (current) {
    report.repaired = await pendingRepairs(d.storage, current);
    if (report.repaired.length > 0) {
      accepted.add(current.input_sha256);
      const key = `${inboxDir(supplier)}/${current.input_filename}`;
      if ((await hashStored(d.storage, key)) === current.input_sha256)
        report.repaired.push("input archived");
    }
  }
  report.removedOrphans = await findOrphanStates(d.storage, supplier, current);
  report.removedLeftovers = await findLeftovers(d.storage, history, supplier);
  return {
    report,
    accepted,
    archived: report.repaired.includes("input archived") ? current : undefined,
  };
}

/** The PLANNED result: what recovery and the inbox step would do, and which file would be read. */
export async function planIngestion(
  d: PlanDeps,
  supplier: string,
  runId: string,
): Promise<IngestResult> {
  const { report, accepted, archived } = await previewRecovery(d, supplier);
  const loaded = loadSupplierConfig(d.settings.configDir, supplier);
  let selection: Selection | undefined;
  let detail: string;
  if (!loaded.ok) detail = `would FAIL ${loaded.reason}: ${loaded.detail}`;
  else {
    const rule = {
      windowSeconds: loaded.config.file_stability_window,
      atomicRename: loaded.config.atomic_rename,
    };
    selection = await selectInput(d.storage, supplier, rule, d.clock.now(), false, accepted);
    // Recovery archives the published input: the inbox step would not see it.
    if (archived) {
      selection.duplicates = selection.duplicates.filter(
        (f) => f.entry.name !== archived.input_filename || f.sha256 !== archived.input_sha256,
      );
    }
    detail = selection.chosen
      ? `would process ${selection.chosen.entry.name}`
      : "nothing to process";
  }
  return fileLessResult({
    supplier,
    run_id: runId,
    status: "PLANNED",
    detail: `dry run: ${detail}`,
    inbox: inboxSummary(selection),
    recovery: report,
  });
}
