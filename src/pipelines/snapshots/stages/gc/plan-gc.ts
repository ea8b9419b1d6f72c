/**
 * Retention for one supplier, as a plan of deletions. Deleted: old
 * quarantine and archive files, old runs (diag/ sooner), replaced states once
 * state_retention_hours have passed since current switched away from them, states that were
 * never published, accepted_runs records past their retention. Never deleted: the active state,
 * its run, its accepted record, a state switched away less than state_retention_hours ago.
 */

import { parseSnapshotRunId } from "../ingest/run-id.ts";
import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import { destinationDir, STATE_FILES } from "../intake/layout/tree.ts";
import type { SnapshotStorage, StatePublication } from "../publish/storage/snapshot-storage.ts";

/** One thing gc deletes (or, with a reason, keeps). */
export interface GcItem {
  supplier: string;
  /**
   * `workdir`: a killed run's local scratch folder (`storage: s3`); `partial`: an upload a
   * killed run never finished.
   */
  kind: "quarantine" | "archive" | "run" | "diag" | "state" | "accepted" | "workdir" | "partial";
  /** File key, folder key for run/diag/state, local path for workdir. */
  key: string;
  why: string;
  /** Size of what is deleted, in bytes (deletions only). */
  bytes?: number;
  /** The same, for people (`80.1 MiB`). */
  size?: string;
}

/** Deletions and the notable things kept (states and records gc must not touch). */
export interface GcPlan {
  delete: GcItem[];
  keep: GcItem[];
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** What every phase of a supplier's plan reads, and the plan it adds to. */
interface Planning {
  storage: SnapshotStorage;
  supplier: string;
  cfg: Pick<SupplierConfig, "retention" | "state_retention_hours">;
  /** Now, in ms. */
  t: number;
  plan: GcPlan;
  current: Awaited<ReturnType<SnapshotStorage["readCurrent"]>>;
  item(kind: GcItem["kind"], key: string, why: string): GcItem;
}

/** A publication record: when the supplier's state switched to the run. */
type AcceptedRecord = { key: string; run_id: string; at: number };

/** Builds the plan for one supplier; the caller holds the supplier's lock. */
export async function planSupplierGc(
  storage: SnapshotStorage,
  supplier: string,
  cfg: Pick<SupplierConfig, "retention" | "state_retention_hours">,
  now: Date,
): Promise<GcPlan> {
  const plan: GcPlan = { delete: [], keep: [] };
  const t = now.getTime();
  const r = cfg.retention;
  const item = (kind: GcItem["kind"], key: string, why: string): GcItem => ({
    supplier,
    kind,
    key,
    why,
  });

  const aged = async (dir: string, kind: GcItem["kind"], days: number) => {
    for await (const e of storage.walkFiles(dir)) {
      if (t - e.mtimeMs >= days * DAY)
        plan.delete.push({ ...item(kind, e.key, `older than ${days} days`), bytes: e.size });
    }
  };
  await aged(destinationDir(supplier, "duplicates"), "quarantine", r.quarantine_days);
  await aged(destinationDir(supplier, "broken"), "quarantine", r.quarantine_days);
  await aged(destinationDir(supplier, "obsolete"), "archive", r.archive_days);
  await aged(destinationDir(supplier, "accepted"), "archive", r.archive_days);

  const current = await storage.readCurrent(supplier);
  const p: Planning = { storage, supplier, cfg, t, plan, current, item };
  await planRuns(p);
  const accepted = await planAccepted(p);
  await planStates(p, accepted);
  return plan;
}

/** Run folders: the active state's is kept, old ones go, and old runs' diag folders. */
async function planRuns({ storage, supplier, cfg, t, plan, current, item }: Planning) {
  const r = cfg.retention;
  for (const runId of await storage.listDirs("runs")) {
    const parsed = parseSnapshotRunId(runId);
    if (parsed?.supplier !== supplier) continue;
    if (runId === current?.run_id) {
      plan.keep.push(item("run", `runs/${runId}`, "run of the active state"));
      continue;
    }
    const age = t - parsed.startedAt.getTime();
    if (age >= r.runs_days * DAY) {
      plan.delete.push(item("run", `runs/${runId}`, `older than ${r.runs_days} days`));
    } else if (
      age >= r.diag_days * DAY &&
      (await storage.listDirs(`runs/${runId}`)).includes("diag")
    ) {
      plan.delete.push(item("diag", `runs/${runId}/diag`, `older than ${r.diag_days} days`));
    }
  }
}

/** accepted_runs: the publication history (accepted_at = when current switched to the run). */
async function planAccepted(p: Planning): Promise<AcceptedRecord[]> {
  const { storage, supplier, cfg, t, plan, current, item } = p;
  const accepted: AcceptedRecord[] = [];
  for await (const e of storage.walkFiles(`accepted_runs/${supplier}`)) {
    const text = await storage.readText(e.key);
    const rec = text ? (JSON.parse(text) as { run_id?: string; accepted_at?: string }) : {};
    accepted.push({
      key: e.key,
      run_id: rec.run_id ?? "",
      at: Date.parse(rec.accepted_at ?? "") || e.mtimeMs,
    });
  }
  accepted.sort((a, b) => a.at - b.at);
  const days = cfg.retention.accepted_runs_days;
  for (const a of accepted) {
    if (a.run_id === current?.run_id)
      plan.keep.push(item("accepted", a.key, "record of the active state"));
    else if (t - a.at >= days * DAY) {
      plan.delete.push(item("accepted", a.key, `older than ${days} days`));
    }
  }
  return accepted;
}

/** Published states: the active one is kept, replaced ones go after state_retention_hours. */
async function planStates(p: Planning, accepted: AcceptedRecord[]) {
  const { storage, supplier, cfg, t, plan, current, item } = p;
  const keepHours = cfg.state_retention_hours;
  for (const runId of await storage.listDirs(`state_store/${supplier}`)) {
    const key = `state_store/${supplier}/${runId}`;
    if (runId === current?.run_id) {
      plan.keep.push(item("state", key, "active state (state/current)"));
      continue;
    }
    const text = await storage.readText(`${key}/${STATE_FILES.publication}`);
    if (text === undefined) {
      plan.delete.push(item("state", key, "incomplete, never published"));
      continue;
    }
    if (!current) {
      plan.keep.push(item("state", key, "no current state: history unknown, kept"));
      continue;
    }
    const pub = JSON.parse(text) as StatePublication;
    if (pub.created_at > current.published_at) {
      plan.delete.push(
        item("state", key, "created after the active state was published: never published"),
      );
      continue;
    }
    // Switched away when the next accepted run was published; without a record, the active
    // state's publication time is a safe upper bound.
    const mine = accepted.findIndex((a) => a.run_id === runId);
    const next = mine >= 0 ? accepted[mine + 1] : undefined;
    const switchedAway = next ? next.at : Date.parse(current.published_at);
    const hours = (t - switchedAway) / HOUR;
    if (hours >= keepHours) {
      plan.delete.push(
        item("state", key, `replaced ${hours.toFixed(1)} h ago (>= ${keepHours} h)`),
      );
    } else {
      plan.keep.push(item("state", key, `replaced ${hours.toFixed(1)} h ago (< ${keepHours} h)`));
    }
  }
}
