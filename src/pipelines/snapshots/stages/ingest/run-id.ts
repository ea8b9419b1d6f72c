/** Run id: `<supplier>_<YYYYMMDDTHHMMSSZ>_<rand6>` (UTC, Z suffix, 6 lowercase hex). */
export const SNAPSHOT_RUN_ID = /^([A-Za-z0-9][A-Za-z0-9_-]*)_(\d{8}T\d{6}Z)_([0-9a-f]{6})$/;

/** A fresh run id for a supplier; uniqueness is enforced by the caller's insert (primary key). */
export function newSnapshotRunId(supplier: string, startedAt: Date): string {
  return newRunId(supplier, startedAt);
}

/** Supplier and start time of a run id, or undefined if it is not one. */
export function parseSnapshotRunId(
  runId: string,
): { supplier: string; startedAt: Date } | undefined {
  const m = SNAPSHOT_RUN_ID.exec(runId);
  if (!m) return undefined;
  const t = m[2]!;
  const iso = `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`;
  return { supplier: m[1]!, startedAt: new Date(iso) };
}

import { newRunId } from "tidemark/kit";
