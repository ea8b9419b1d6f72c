import { randomBytes } from "node:crypto";

/** Formats a date as `YYYYMMDDTHHMMSSZ` (UTC). */
export function compactUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;
}

/** A run id: `<job>_<YYYYMMDDTHHMMSSZ>_<rand6>` with 6 lowercase hex characters. */
export function newRunId(jobName: string, startedAt: Date): string {
  return `${jobName}_${compactUtc(startedAt)}_${randomBytes(3).toString("hex")}`;
}

/** Matches run ids produced by newRunId. */
export const RUN_ID_PATTERN = /^(.+)_(\d{8}T\d{6}Z)_([0-9a-f]{6})$/;
