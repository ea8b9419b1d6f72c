/** The JSON documents of a run: stats.json, manifest.json, accepted record. */

import { RUN_FILES, runDir } from "../intake/layout/tree.ts";
import { badRatio } from "../quality/dq.ts";
import type { Counts } from "../quality/emit/row-emitter.ts";
import type { ReasonCode } from "../quality/reason-codes/reason-code.ts";
import type { SnapshotDiff } from "./artifacts/key-diff.ts";
import type { StatePointer } from "./storage/snapshot-storage.ts";

/** Key of a run's manifest. */
export const manifestKey = (runId: string) => `${runDir(runId)}/${RUN_FILES.manifest}`;

/** stats.json: the documented minimal fields first, then breakdowns. */
export interface Stats {
  total_rows: number;
  good_rows: number;
  bad_rows: number;
  bad_ratio: number;
  run_id: string;
  supplier: string;
  by_category: Record<
    string,
    { total_rows: number; good_rows: number; bad_rows: number; bad_ratio: number }
  >;
  by_reason: Partial<Record<ReasonCode, number>>;
  /** Full-snapshot comparison with the previous state; null when not computed. */
  diff: SnapshotDiff | null;
  dq: {
    min_fact_count: number;
    max_bad_ratio: number;
    allow_empty_snapshot: boolean;
    status: "PASS" | "FAIL" | "NOT_REACHED";
    reason_code: ReasonCode | null;
  };
  input: Record<string, unknown>;
  /** Wall time of the phases (parse = gate + emit, keys = dedupe + diff, publish = state). */
  timing_ms?: { parse: number; keys: number; publish: number };
}

/** Builds stats.json from the emitter's counts. */
export function buildStats(a: {
  runId: string;
  supplier: string;
  totals: Counts;
  byCategory: ReadonlyMap<string, Counts>;
  byReason: ReadonlyMap<ReasonCode, number>;
  diff: SnapshotDiff | null;
  dq: Stats["dq"];
  input: Record<string, unknown>;
}): Stats {
  const byCategory: Stats["by_category"] = {};
  for (const [cat, c] of [...a.byCategory.entries()].sort(([x], [y]) =>
    x < y ? -1 : x > y ? 1 : 0,
  )) {
    byCategory[cat] = {
      total_rows: c.total,
      good_rows: c.good,
      bad_rows: c.bad,
      bad_ratio: badRatio(c.good, c.bad),
    };
  }
  const byReason: Stats["by_reason"] = {};
  for (const [code, n] of [...a.byReason.entries()].sort()) byReason[code] = n;
  return {
    total_rows: a.totals.good + a.totals.bad,
    good_rows: a.totals.good,
    bad_rows: a.totals.bad,
    bad_ratio: badRatio(a.totals.good, a.totals.bad),
    run_id: a.runId,
    supplier: a.supplier,
    by_category: byCategory,
    by_reason: byReason,
    diff: a.diff,
    dq: a.dq,
    input: a.input,
  };
}

/** manifest.json: every documented field, then the operational extras. */
export interface Manifest {
  run_id: string;
  supplier: string;
  input_filename: string | null;
  input_sha256: string | null;
  started_at: string;
  finished_at: string;
  good_rows: number;
  bad_rows: number;
  status: "PASS" | "FAIL";
  code_commit: string;
  fail_reason: ReasonCode | null;
  fail_detail: string | null;
  total_rows: number;
  bad_ratio: number;
  input_size: number | null;
  /** Where the input file went (quarantine/…/broken/…, archive/…/accepted/…), null if it stayed. */
  input_moved_to: string | null;
  /** state_store/<supplier>/<run_id> on PASS. */
  state_path: string | null;
  previous_state_run_id: string | null;
  engine_run_id: string | null;
  artifacts: { facts: string | null; bad: string | null; stats: string | null };
  /** True when written by recovery after the process died between publication and manifest. */
  recovered?: boolean;
}

/** The JSON text of a document (pretty, newline-terminated). */
export function documentText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** accepted_runs/<supplier>/<sha2>/<sha>.json, written only for a published PASS. */
export function acceptedRecord(pointer: StatePointer): Record<string, unknown> {
  return {
    run_id: pointer.run_id,
    accepted_at: pointer.published_at,
    input_filename: pointer.input_filename,
    manifest_path: manifestKey(pointer.run_id),
    supplier: pointer.supplier,
    input_sha256: pointer.input_sha256,
    state_path: pointer.state_path,
  };
}
