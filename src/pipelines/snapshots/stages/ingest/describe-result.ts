import { formatBytes } from "./byte-size.ts";
import type { IngestResult } from "./types.ts";

/** Human-readable lines for one ingestion. */
export function describeResult(r: IngestResult): string[] {
  const head = r.status === "FAIL" ? `FAIL ${r.reason_code}` : r.status;
  // `snapshots run --dry-run` records no run: it has no id to show.
  const run = r.run_id ? `run ${r.run_id}` : "dry run, nothing written";
  const lines = [`${r.supplier}: ${head} (${run})`];
  if (r.status === "FAIL" || r.status === "NO_INPUT" || r.status === "PLANNED") {
    if (r.detail) lines.push(`  ${r.detail}`);
  }
  if (r.input_filename) {
    const moved = r.input_moved_to ? ` → ${r.input_moved_to}` : " (left in the inbox)";
    lines.push(`  input: ${r.input_filename} sha256 ${r.input_sha256?.slice(0, 16)}…${moved}`);
  }
  if (r.total_rows > 0 || r.status === "PASS") {
    lines.push(
      `  rows: ${r.total_rows} (good ${r.good_rows}, bad ${r.bad_rows}, bad_ratio ${Number(r.bad_ratio.toFixed(6))})`,
    );
  }
  if (r.status === "PASS" && r.diff) {
    const d = r.diff;
    lines.push(`  state: published ${r.state_path}`);
    // Full snapshot: a key missing from the file is gone from the state (its stock is 0 now).
    const gone = d.removed > 0 ? " (keys no longer in the file: stock 0 now)" : "";
    lines.push(
      `  vs previous state ${d.previous_run_id ?? "(none)"}:`,
      `    +${d.added} added, -${d.removed} removed${gone}, ~${d.changed} changed, ${d.unchanged} unchanged`,
    );
  }
  const inbox: string[] = [];
  if (r.inbox.duplicates.length)
    inbox.push(`${r.inbox.duplicates.length} duplicate(s) → quarantine/${r.supplier}/duplicates/`);
  if (r.inbox.obsolete.length)
    inbox.push(`${r.inbox.obsolete.length} obsolete → archive/${r.supplier}/obsolete/`);
  if (r.inbox.unstable.length) inbox.push(`${r.inbox.unstable.length} still growing (left alone)`);
  if (r.inbox.in_flight.length)
    inbox.push(`${r.inbox.in_flight.length} upload(s) in progress (*.tmp)`);
  if (inbox.length) lines.push(`  inbox: ${inbox.join(", ")}`);
  const recovery = recoveryLine(r);
  if (recovery) lines.push(recovery);
  if (r.manifest_path) lines.push(`  manifest: ${r.manifest_path}`);
  return lines;
}

/** What recovery did (or, for a dry run, would do first), or null when nothing. */
function recoveryLine(r: IngestResult): string | null {
  const rec = r.recovery;
  // Summaries recorded before removedLeftovers existed lack it (`runs show` renders them too).
  const left = rec.removedLeftovers ?? [];
  if (!rec.interrupted.length && !rec.repaired.length && !rec.removedOrphans.length && !left.length)
    return null;
  const planned = r.status === "PLANNED";
  const count = (kind: string) => left.filter((l) => l.kind === kind).length;
  const bytes = left.reduce((sum, l) => sum + l.bytes, 0);
  const parts = [
    ...(rec.interrupted.length ? [`interrupted run(s) ${rec.interrupted.join(", ")}`] : []),
    ...(rec.repaired.length ? [`${planned ? "redo" : "redone"}: ${rec.repaired.join(", ")}`] : []),
    ...(rec.removedOrphans.length
      ? [`${planned ? "remove" : "removed"} unpublished state(s) ${rec.removedOrphans.join(", ")}`]
      : []),
    ...(left.length
      ? [
          `${planned ? "remove" : "removed"} what killed runs left: ${count("workdir")} work dir(s), ${count("partial")} unfinished upload(s), ${formatBytes(bytes)}`,
        ]
      : []),
  ];
  return `  ${planned ? "would first recover" : "recovery"}: ${parts.join("; ")}`;
}
