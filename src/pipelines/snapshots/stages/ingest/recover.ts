import { codeCommit } from "tidemark/kit";
import type { HistoryRepo } from "../../repos/history-repo.ts";
import { hashStored, moveIfPresent } from "../intake/inbox/select-input.ts";
import {
  acceptedKey,
  destinationDir,
  inboxDir,
  RUN_FILES,
  runDir,
  STATE_FILES,
} from "../intake/layout/tree.ts";
import { publishedRunOf } from "../publish/accepted.ts";
import { writeAccepted } from "../publish/publish-state.ts";
import { documentText, type Manifest, manifestKey, type Stats } from "../publish/run-documents.ts";
import type {
  SnapshotStorage,
  StatePointer,
  StatePublication,
} from "../publish/storage/snapshot-storage.ts";
import { findLeftovers, type Leftover, removeLeftover } from "./dead-run-leftovers.ts";
import { parseSnapshotRunId } from "./run-id.ts";

/** What recovery found and fixed. */
export interface RecoveryReport {
  /** Runs left RUNNING by a dead process, now INTERRUPTED. */
  interrupted: string[];
  /** Steps of a published run that were redone (accepted record, manifest, input archive). */
  repaired: string[];
  /** States that were never published (crash before the switch), removed. */
  removedOrphans: string[];
  /** Work dirs and unfinished uploads of killed runs (`storage: s3`), removed, with sizes. */
  removedLeftovers: Leftover[];
}

/** A report of nothing found (before recovery ran, or a dry run). */
export function emptyRecoveryReport(): RecoveryReport {
  return { interrupted: [], repaired: [], removedOrphans: [], removedLeftovers: [] };
}

/**
 * Runs at the start of every ingestion, under the supplier's lock. Current is the
 * commit point: whatever follows a switch (accepted record, manifest, archiving the input) is
 * redone if missing; states never switched to are removed; the previous state stays published.
 * Last, what killed runs left outside the tree (work dirs, unfinished uploads) is deleted.
 */
export async function recover(r: {
  storage: SnapshotStorage;
  history: HistoryRepo;
  supplier: string;
  runId: string;
  now: Date;
}): Promise<RecoveryReport> {
  const { storage, supplier } = r;
  const report: RecoveryReport = {
    interrupted: await r.history.markInterrupted(supplier, r.runId, r.now.toISOString()),
    repaired: [],
    removedOrphans: [],
    removedLeftovers: [],
  };
  const current = await storage.readCurrent(supplier);
  if (current) await repairPublished(r, current, report);
  for (const dir of await findOrphanStates(storage, supplier, current)) {
    await storage.removeDir(`state_store/${supplier}/${dir}`);
    report.removedOrphans.push(dir);
  }
  for (const leftover of await findLeftovers(storage, r.history, supplier, r.runId)) {
    await removeLeftover(storage, leftover);
    report.removedLeftovers.push(leftover);
  }
  return report;
}

/** States never switched to (a run killed before its switch): their run ids. */
export async function findOrphanStates(
  storage: SnapshotStorage,
  supplier: string,
  current: StatePointer | undefined,
): Promise<string[]> {
  const orphans: string[] = [];
  for (const dir of await storage.listDirs(`state_store/${supplier}`)) {
    if (dir === current?.run_id) continue;
    const text = await storage.readText(
      `state_store/${supplier}/${dir}/${STATE_FILES.publication}`,
    );
    if (text !== undefined) {
      const pub = JSON.parse(text) as StatePublication;
      // Created before current was published: it may have been current once; gc decides.
      if (current && pub.created_at < current.published_at) continue;
      if ((await publishedRunOf(storage, supplier, pub.input_sha256)) === pub.run_id) continue;
    }
    orphans.push(dir);
  }
  return orphans;
}

/** Which steps of current's publication a crash left undone (empty: none). */
export async function pendingRepairs(
  storage: SnapshotStorage,
  current: StatePointer,
): Promise<string[]> {
  const steps: string[] = [];
  if (!(await storage.stat(acceptedKey(current.supplier, current.input_sha256))))
    steps.push("accepted_runs record");
  if (!(await storage.stat(manifestKey(current.run_id)))) steps.push("manifest");
  return steps;
}

async function repairPublished(
  r: { storage: SnapshotStorage; history: HistoryRepo; supplier: string },
  current: StatePointer,
  report: RecoveryReport,
): Promise<void> {
  const { storage, supplier } = r;
  // Written before the switch (process-file.ts): the run's figures and diff.
  const statsKey = `${runDir(current.run_id)}/${RUN_FILES.stats}`;
  const statsText = await storage.readText(statsKey);
  const stats = statsText ? (JSON.parse(statsText) as Stats) : undefined;
  const needAccepted = !(await storage.stat(acceptedKey(supplier, current.input_sha256)));
  const needManifest = !(await storage.stat(manifestKey(current.run_id)));
  if (needAccepted) {
    await writeAccepted(storage, current);
    report.repaired.push("accepted_runs record");
  }
  // The manifest is the last step of a publication: with it and the record, nothing is left.
  if (needAccepted || needManifest) {
    const movedTo = await archiveInput(storage, current);
    if (movedTo) report.repaired.push("input archived");
    if (needManifest) {
      const manifest = await recoveredManifest(r, current, stats, movedTo);
      await storage.writeText(manifestKey(current.run_id), documentText(manifest));
      report.repaired.push("manifest");
    }
  }
  await r.history.markPublished(current, current.published_at, {
    good_rows: stats?.good_rows ?? current.fact_count,
    bad_rows: stats?.bad_rows ?? null,
    added: stats?.diff?.added ?? null,
    removed: stats?.diff?.removed ?? null,
    changed: stats?.diff?.changed ?? null,
  });
}

/** Moves the published input from the inbox to the archive if it is still there. */
async function archiveInput(storage: SnapshotStorage, current: StatePointer) {
  const inboxKey = `${inboxDir(current.supplier)}/${current.input_filename}`;
  if (
    !(await storage.stat(inboxKey)) ||
    (await hashStored(storage, inboxKey)) !== current.input_sha256
  ) {
    return null;
  }
  return moveIfPresent(storage, inboxKey, destinationDir(current.supplier, "accepted"));
}

/** The manifest of a published run whose process died before writing it. */
async function recoveredManifest(
  r: { storage: SnapshotStorage; history: HistoryRepo; supplier: string },
  current: StatePointer,
  stats: Stats | undefined,
  movedTo: string | null,
): Promise<Manifest> {
  const row = await r.history.get(current.run_id);
  const artifact = async (name: string) => {
    const key = `${runDir(current.run_id)}/${name}`;
    return (await r.storage.stat(key)) ? key : null;
  };
  return {
    run_id: current.run_id,
    supplier: r.supplier,
    input_filename: current.input_filename,
    input_sha256: current.input_sha256,
    started_at:
      row?.started_at ??
      parseSnapshotRunId(current.run_id)?.startedAt.toISOString() ??
      current.created_at,
    finished_at: current.published_at,
    good_rows: stats?.good_rows ?? current.fact_count,
    // Without stats.json (a run of an older version) the bad rows are unknown: none counted.
    bad_rows: stats?.bad_rows ?? 0,
    status: "PASS",
    code_commit: codeCommit(),
    fail_reason: null,
    fail_detail: null,
    total_rows: stats?.total_rows ?? current.fact_count,
    bad_ratio: stats?.bad_ratio ?? 0,
    input_size: typeof stats?.input.size === "number" ? stats.input.size : null,
    input_moved_to: movedTo,
    state_path: current.state_path,
    previous_state_run_id: stats?.diff?.previous_run_id ?? null,
    engine_run_id: row?.engine_run_id ?? null,
    artifacts: {
      facts: await artifact(RUN_FILES.facts),
      bad: await artifact(RUN_FILES.bad),
      stats: stats ? `${runDir(current.run_id)}/${RUN_FILES.stats}` : null,
    },
    recovered: true,
  };
}
