/**
 * What killed runs of a supplier leave outside the tree's own records (`storage: s3`): their
 * local work dir (`work_dir/<run_id>`, tens of MB each) and uploads they never finished (temp
 * files of the fs blob driver under the supplier's keys). Found and removed by the next run's
 * recovery and by gc, both under the supplier's lease: whoever holds it is the only live run,
 * so every other run of the supplier is dead.
 */
import type { HistoryRepo } from "../../repos/history-repo.ts";
import type { SnapshotStorage } from "../publish/storage/snapshot-storage.ts";
import { parseSnapshotRunId } from "./run-id.ts";

/** One thing a dead run left behind. */
export interface Leftover {
  /** `workdir`: a local scratch folder; `partial`: an upload that never finished. */
  kind: "workdir" | "partial";
  /** Absolute local path (workdir) or storage key (partial). */
  key: string;
  /** The run it belonged to, when its path names one. */
  run_id: string | null;
  bytes: number;
}

/**
 * The supplier's leftovers, sparing `liveRunId` (the caller's run). A work dir counts only if
 * its run is in this database's history: a scratch folder shared with another installation
 * may hold that one's live runs.
 */
export async function findLeftovers(
  storage: SnapshotStorage,
  history: HistoryRepo,
  supplier: string,
  liveRunId?: string,
): Promise<Leftover[]> {
  const dead = (runId: string | undefined) =>
    runId !== undefined && runId !== liveRunId && parseSnapshotRunId(runId)?.supplier === supplier;
  const out: Leftover[] = [];
  for (const dir of await storage.listWorkDirs()) {
    if (dead(dir.name) && (await history.get(dir.name))) {
      out.push({ kind: "workdir", key: dir.path, run_id: dir.name, bytes: dir.bytes });
    }
  }
  /** Temp files below dir; with runAt, only inside the folders of dead runs (key segment runAt). */
  const partial = async (dir: string, runAt?: number) => {
    const descend = (key: string) => {
      const parts = key.split("/");
      return runAt === undefined || parts.length - 1 < runAt || dead(parts[runAt]);
    };
    for await (const e of storage.walkPartialWrites(dir, descend)) {
      const parts = e.key.split("/");
      if (runAt !== undefined && parts.length - 1 <= runAt) continue;
      const runId = runAt === undefined ? null : (parts[runAt] ?? null);
      out.push({ kind: "partial", key: e.key, run_id: runId, bytes: e.size });
    }
  };
  // runs/<run_id>/… and state_store/<s>/<run_id>/…: only dead runs of this supplier.
  await partial("runs", 1);
  await partial(`state_store/${supplier}`, 2);
  // Folders of the supplier alone: under its lease nobody else writes there.
  for (const dir of [
    `archive/${supplier}`,
    `quarantine/${supplier}`,
    `accepted_runs/${supplier}`,
  ]) {
    await partial(dir);
  }
  // state/current is shared: only the temp file of this supplier's pointer.
  for await (const e of storage.walkPartialWrites("state/current", () => false)) {
    if (e.name.startsWith(`.${supplier}.json.`)) {
      out.push({ kind: "partial", key: e.key, run_id: null, bytes: e.size });
    }
  }
  return out;
}

/** Deletes one leftover. */
export async function removeLeftover(storage: SnapshotStorage, l: Leftover): Promise<void> {
  if (l.kind === "workdir") {
    if (l.run_id) await storage.discardWorkDir(l.run_id);
  } else {
    await storage.removePartialWrite(l.key);
  }
}
