import type { JobRecord } from "../../../engine/jobs/job-repo.ts";
import type { PanelChart } from "../../../engine/registry/panel-spec.ts";
import type { RunRecord } from "../../../engine/runs/run-repo.ts";
import { occurrenceAfter } from "../../../engine/scheduler/cron-math.ts";
import { utcTime } from "../format.ts";

/** Summary fields read as "items" of a run when it reported no progress, first found wins. */
const ITEM_FIELDS = [
  "items",
  "total_rows",
  "processed",
  "targets",
  "total",
  "fetched",
  "facts",
  "products",
  "books",
  "events",
  "enqueued",
];

/** What a run worked through: its progress count, else a count its summary names. */
export function itemsOf(run: RunRecord): number | null {
  if (run.progress) return run.progress.done;
  for (const f of ITEM_FIELDS) {
    const v = run.summary?.[f];
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return null;
}

/** A finished run's duration in seconds; null while it runs. */
export function durationSeconds(run: RunRecord): number | null {
  if (!run.finishedAt) return null;
  return Math.max(0, (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000);
}

/** Succeeded among finished runs (skipped ones aside), as a share; null when none finished. */
export function successRate(runs: readonly RunRecord[]): { rate: number; of: number } | null {
  const counted = runs.filter((r) => ["succeeded", "failed", "abandoned"].includes(r.status));
  if (counted.length === 0) return null;
  const ok = counted.filter((r) => r.status === "succeeded").length;
  return { rate: ok / counted.length, of: counted.length };
}

/** The next `n` fires of an enabled, scheduled job (before jitter). */
export function nextFires(job: JobRecord, now: Date, n = 5): string[] {
  if (!job.enabled || job.schedule === null) return [];
  const out: string[] = [];
  let after = now;
  while (out.length < n) {
    const next = occurrenceAfter(job.schedule, job.timezone, after);
    if (!next) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

/**
 * Duration and items per run, oldest first, by run order: runs minutes apart and runs seconds
 * apart each get one step, so a burst of runs does not pile up on one spot of a time axis.
 */
export function historyCharts(runs: readonly RunRecord[]): PanelChart[] {
  const ordered = [...runs].reverse();
  const x = ordered.map((_, i) => i + 1);
  const labels = ordered.map((r) => `${utcTime(r.startedAt)} UTC · ${r.status}`);
  const base = { kind: "chart" as const, time: false, x, labels };
  return [
    {
      ...base,
      title: "Duration per run (seconds, by run order)",
      series: [{ label: "duration (s)", values: ordered.map(durationSeconds) }],
      empty: "No run has finished yet.",
    },
    {
      ...base,
      title: "Items per run (by run order)",
      series: [{ label: "items", values: ordered.map(itemsOf) }],
      empty: "No run reported a count of items (progress or an item count in its summary).",
    },
  ];
}
