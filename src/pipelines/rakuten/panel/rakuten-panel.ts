import type { PanelBlock, PanelModule, PanelRun } from "../../../engine/index.ts";
import { rakutenStatus } from "../commands/status-command.ts";

/** Runs shown in the chart. */
const CHART_RUNS = 60;

const count = (summary: Record<string, unknown> | null, key: string): number | null =>
  typeof summary?.[key] === "number" ? (summary[key] as number) : null;

/** Changed and unchanged targets of each entity run, oldest first (runs without them left out). */
function changedChart(runs: readonly PanelRun[]): PanelBlock {
  const points = runs
    .filter(
      (r) => count(r.summary, "changed") !== null || count(r.summary, "unchanged_skipped") !== null,
    )
    .reverse();
  return {
    kind: "chart",
    title: "Changed vs unchanged targets per run",
    time: true,
    x: points.map((r) => Date.parse(r.startedAt) / 1000),
    series: [
      { label: "changed", values: points.map((r) => count(r.summary, "changed")) },
      { label: "unchanged", values: points.map((r) => count(r.summary, "unchanged_skipped")) },
    ],
    empty: "No Rakuten run yet.",
  };
}

/** The Rakuten panel: the ledger per entity and the changed/unchanged trend of its runs. */
export const rakutenPanel: PanelModule = {
  async view(services) {
    const [statuses, runs] = await Promise.all([
      rakutenStatus(services.runtime),
      services.recentRuns({ limit: CHART_RUNS }),
    ]);
    const pending = statuses.reduce((n, s) => n + s.pending_reapply, 0);
    return {
      blocks: [
        {
          kind: "stats",
          items: [
            { label: "ledger rows", value: statuses.reduce((n, s) => n + s.ledger_rows, 0) },
            { label: "saved today (UTC)", value: statuses.reduce((n, s) => n + s.saved_today, 0) },
            { label: "pending re-apply", value: pending, tone: pending > 0 ? "warn" : "ok" },
          ],
        },
        {
          kind: "table",
          title: "Ledger per entity",
          columns: [
            "Entity",
            "Rows",
            "Saved today",
            "Pending re-apply",
            "Last saved",
            "Apply version",
          ],
          empty: "No entity yet.",
          rows: statuses.map((s) => [
            s.entity,
            s.ledger_rows,
            s.saved_today,
            s.pending_reapply > 0 ? { text: String(s.pending_reapply), tone: "warn" } : 0,
            s.last_saved_at,
            s.apply_version,
          ]),
        },
        changedChart(runs),
      ],
    };
  },
};
