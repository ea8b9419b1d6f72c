/**
 * Monitoring figures per supplier (docs/pipelines/snapshots.md, Monitoring): age of state/current, FAILs in a row
 * (repeated FAIL) and the same SHA-256 arriving in a row (drift). Plain data, so the CLI prints
 * it and the HTTP server can expose it as Prometheus metrics (see metrics.ts).
 */

import { existsSync } from "node:fs";
import { HistoryRepo } from "../repos/history-repo.ts";
import { loadSupplierConfig } from "../stages/intake/config/load-supplier-config.ts";
import { isInFlightName } from "../stages/intake/inbox/select-input.ts";
import { inboxDir } from "../stages/intake/layout/tree.ts";
import { knownSuppliers, type StatusSources } from "../stages/intake/suppliers/known-supplier.ts";
import { openStorage } from "../stages/publish/storage/open-storage.ts";

/** An alert condition of the monitoring figures. */
export type SnapshotAlert = "REPEATED_FAIL" | "SHA_DRIFT" | "STATE_STALE";

/** One supplier's monitoring figures. */
export interface SupplierStatus {
  supplier: string;
  config: "ok" | "missing" | "invalid";
  /** The published state (state/current), or null when nothing was ever published. */
  state: {
    run_id: string;
    published_at: string;
    age_seconds: number;
    fact_count: number;
    input_filename: string;
    input_sha256: string;
  } | null;
  last_run: {
    run_id: string;
    status: string;
    reason_code: string | null;
    started_at: string;
    finished_at: string | null;
  } | null;
  /** FAIL runs since the last PASS. */
  consecutive_fails: number;
  /** Inbox files in a row (newest first) with the same content. */
  identical_sha: { sha256: string | null; count: number };
  /** Files waiting in the inbox (uploads in progress excluded). */
  inbox_files: number;
  alerts: SnapshotAlert[];
  thresholds: {
    consecutive_fails: number;
    identical_sha_streak: number;
    max_state_age_hours: number | null;
  };
}

/** The last run as one table cell: `PASS`, `FAIL DQ_BAD_RATIO`, … (null when none). */
export function lastRunText(s: SupplierStatus): string | null {
  if (!s.last_run) return null;
  const { status, reason_code } = s.last_run;
  return reason_code ? `${status} ${reason_code}` : status;
}

/**
 * Monitoring figures for every known supplier (or one). This is the function the HTTP server
 * calls for Prometheus metrics: `snapshotsStatus(services)`.
 */
export async function snapshotsStatus(
  sources: StatusSources,
  options: { supplier?: string } = {},
): Promise<SupplierStatus[]> {
  const { settings } = sources;
  const storage = openStorage(settings, sources.blobs);
  const history = new HistoryRepo(sources.db);
  const suppliers = options.supplier
    ? [options.supplier]
    : await knownSuppliers(storage, settings.configDir, history);
  const now = sources.clock.now().getTime();
  const out: SupplierStatus[] = [];
  for (const supplier of suppliers) {
    const loaded = loadSupplierConfig(settings.configDir, supplier);
    const alertsCfg = loaded.ok
      ? loaded.config.alerts
      : { consecutive_fails: 3, identical_sha_streak: 3, max_state_age_hours: undefined };
    const pointer = await storage.readCurrent(supplier).catch(() => undefined);
    const last = (await history.recentRuns(supplier, 1))[0];
    const fails = await history.consecutiveFails(supplier);
    const streak = await history.shaStreak(supplier);
    const inbox = (await storage.listFiles(inboxDir(supplier))).filter(
      (e) => !isInFlightName(e.name),
    );
    const age = pointer
      ? Math.max(0, Math.round((now - Date.parse(pointer.published_at)) / 1000))
      : null;
    const alerts: SnapshotAlert[] = [];
    if (fails >= alertsCfg.consecutive_fails) alerts.push("REPEATED_FAIL");
    if (streak.count >= alertsCfg.identical_sha_streak) alerts.push("SHA_DRIFT");
    const maxAge = alertsCfg.max_state_age_hours;
    if (maxAge !== undefined && (age === null || age > maxAge * 3600)) alerts.push("STATE_STALE");
    out.push({
      supplier,
      config: loaded.ok ? "ok" : existsSync(loaded.file) ? "invalid" : "missing",
      state: pointer
        ? {
            run_id: pointer.run_id,
            published_at: pointer.published_at,
            age_seconds: age ?? 0,
            fact_count: pointer.fact_count,
            input_filename: pointer.input_filename,
            input_sha256: pointer.input_sha256,
          }
        : null,
      last_run: last
        ? {
            run_id: last.run_id,
            status: last.status,
            reason_code: last.reason_code,
            started_at: last.started_at,
            finished_at: last.finished_at,
          }
        : null,
      consecutive_fails: fails,
      identical_sha: streak,
      inbox_files: inbox.length,
      alerts,
      thresholds: {
        consecutive_fails: alertsCfg.consecutive_fails,
        identical_sha_streak: alertsCfg.identical_sha_streak,
        max_state_age_hours: maxAge ?? null,
      },
    });
  }
  return out;
}
