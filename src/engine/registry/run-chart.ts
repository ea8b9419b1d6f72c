import type { PanelChart, PanelRun } from "./panel-spec.ts";

/** One line of a chart over runs: its label and the value a run gives it (null: no point). */
export interface RunSeries {
  label: string;
  value(run: PanelRun): number | null;
}

/** "2026-01-15 09:30 UTC": a run's start as a chart's legend names it. */
function startLabel(run: PanelRun): string {
  return `${run.startedAt.slice(0, 16).replace("T", " ")} UTC · ${run.jobName}`;
}

/**
 * A chart over runs by run order (oldest first, x = 1, 2, …) rather than by time, so runs a
 * few seconds apart each get their own step; the legend names each run by its start (UTC).
 * `runs` come newest first, as `recentRuns` gives them; runs without any value are left out.
 */
export function runOrderChart(o: {
  title: string;
  runs: readonly PanelRun[];
  series: readonly RunSeries[];
  empty: string;
  /** A fixed y axis (PanelChart's `y`). */
  y?: PanelChart["y"];
}): PanelChart {
  const points = [...o.runs].reverse().filter((r) => o.series.some((s) => s.value(r) !== null));
  return {
    kind: "chart",
    title: o.title,
    time: false,
    x: points.map((_, i) => i + 1),
    labels: points.map(startLabel),
    series: o.series.map((s) => ({ label: s.label, values: points.map((r) => s.value(r)) })),
    empty: o.empty,
    ...(o.y ? { y: o.y } : {}),
  };
}

/**
 * One series per group (entity, supplier, product …) and measure, over runs by run order: runs
 * of different groups never join into one line. `groupOf` names a run's group (undefined: the
 * run is left out); series are labelled "<group> <measure>" (the measure alone when only one).
 */
export function groupedRunChart(o: {
  title: string;
  runs: readonly PanelRun[];
  groupOf(run: PanelRun): string | undefined;
  measures: readonly RunSeries[];
  empty: string;
  /** A fixed y axis (PanelChart's `y`). */
  y?: PanelChart["y"];
}): PanelChart {
  const runs = o.runs.filter((r) => o.groupOf(r) !== undefined);
  const groups = [...new Set(runs.map((r) => o.groupOf(r)!))].sort();
  const series = groups.flatMap((g) =>
    o.measures.map((m) => ({
      label: o.measures.length === 1 ? g : `${g} ${m.label}`,
      value: (r: PanelRun) => (o.groupOf(r) === g ? m.value(r) : null),
    })),
  );
  return runOrderChart({ title: o.title, runs, series, empty: o.empty, y: o.y });
}

/** A number a run's summary holds under `key`, or null. */
export function summaryNumber(run: PanelRun, key: string): number | null {
  const v = run.summary?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
