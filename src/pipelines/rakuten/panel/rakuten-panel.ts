import {
  groupedRunChart,
  type PanelBlock,
  type PanelModule,
  type PanelRun,
  summaryNumber,
} from "tidemark";
import { rakutenStatus } from "../monitoring/status.ts";

/** Runs shown in the chart. */
const CHART_RUNS = 60;

/**
 * Changed and unchanged targets per run, one pair of lines per entity (ranking, item, genre,
 * tag), by run order: each entity's runs form their own lines.
 */
function changedChart(runs: readonly PanelRun[]): PanelBlock {
  const withCounts = runs.filter(
    (r) => summaryNumber(r, "changed") !== null || summaryNumber(r, "unchanged_skipped") !== null,
  );
  return groupedRunChart({
    title: "Changed vs unchanged targets per run, per entity (by run order)",
    runs: withCounts,
    groupOf: (r) => r.jobType.replace(/^rakuten\./, ""),
    measures: [
      { label: "changed", value: (r) => summaryNumber(r, "changed") },
      { label: "unchanged", value: (r) => summaryNumber(r, "unchanged_skipped") },
    ],
    empty: "No Rakuten run yet.",
  });
}

/** The Rakuten panel: the ledger per entity and the changed/unchanged trend of its runs. */
export const rakutenPanel: PanelModule = {
  async view(services) {
    const [statuses, runs] = await Promise.all([
      rakutenStatus(services.services),
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
