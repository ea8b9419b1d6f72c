import type { Selection } from "./select-input.ts";

/** `in 42 s`, `in 3 min`: how long until a moment. */
function inTime(at: Date, now: Date): string {
  const s = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
  return s < 120 ? `in ${s} s` : `in ${Math.round(s / 60)} min`;
}

/**
 * Why a run found no file to take (docs/pipelines/snapshots.md, "Inbox"): a file still
 * inside `file_stability_window` is named with the moment it will be taken if it stays
 * unchanged; an upload not yet renamed (`*.tmp`, dot-file) waits for its rename.
 */
export function waitingReason(selection: Selection, windowSeconds: number, now: Date): string {
  const settles = [...(selection.settles ?? [])].sort((a, b) => a.at.getTime() - b.at.getTime());
  const parts: string[] = [];
  const first = settles[0];
  if (first) {
    const more = settles.length > 1 ? ` (${settles.length} files settling)` : "";
    parts.push(
      `${first.name} changed less than file_stability_window (${windowSeconds} s) ago; it is taken by a run after ${first.at.toISOString().replace(/\.\d{3}Z$/, "Z")} (${inTime(first.at, now)}) if unchanged${more}`,
    );
  }
  const uploads = selection.inFlight.length;
  if (uploads > 0) {
    parts.push(`${uploads} upload(s) in progress (*.tmp or dot-file), taken once renamed`);
  }
  if (parts.length === 0) return "no new file in the inbox";
  return `no stable new file: ${parts.join("; ")}`;
}
