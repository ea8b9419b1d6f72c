import {
  type Database,
  groupedRunChart,
  type PanelBlock,
  type PanelRun,
  summaryNumber,
} from "tidemark";
import { typed } from "tidemark/kit";
import type { SnapshotTables } from "../tables.ts";

/** Supplier runs shown in the charts. */
const CHART_RUNS = 120;

/**
 * The latest supplier runs, oldest last (as recentRuns gives engine runs), each as a chart
 * point: facts published, the share of bad rows, and the age (hours) of the supplier's
 * published state when the run ended.
 */
async function supplierRuns(services: { db: Database }): Promise<PanelRun[]> {
  const rows = await typed<SnapshotTables>(services.db)
    .selectFrom("snapshots.run")
    .select([
      "run_id",
      "supplier",
      "status",
      "started_at",
      "finished_at",
      "published_at",
      "good_rows",
      "bad_rows",
    ])
    .orderBy("started_at", "desc")
    .limit(CHART_RUNS)
    .execute();
  // The state's publication each run saw: the latest publication at or before the run.
  const published = rows
    .filter((r) => r.published_at)
    .map((r) => ({ supplier: r.supplier, at: Date.parse(r.published_at!) }));
  return rows.map((r) => {
    const end = Date.parse(r.finished_at ?? r.started_at);
    const state = published
      .filter((p) => p.supplier === r.supplier && p.at <= end)
      .reduce((a, p) => Math.max(a, p.at), Number.NEGATIVE_INFINITY);
    const total = (r.good_rows ?? 0) + (r.bad_rows ?? 0);
    return {
      runId: r.run_id,
      jobName: r.supplier,
      jobType: "snapshots.ingest",
      status: r.status,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      summary: {
        facts: r.status === "PASS" && r.published_at ? r.good_rows : null,
        bad_ratio: r.bad_rows === null || total === 0 ? null : r.bad_rows / total,
        state_age_hours: Number.isFinite(state)
          ? Math.round(((end - state) / 3600_000) * 10) / 10
          : null,
      },
    };
  });
}

/** Facts, bad ratio and age of state per supplier over its runs (by run order). */
export async function supplierCharts(services: { db: Database }): Promise<PanelBlock[]> {
  const runs = await supplierRuns(services);
  const chart = (title: string, key: string, empty: string) =>
    groupedRunChart({
      title,
      runs,
      groupOf: (r) => (summaryNumber(r, key) === null ? undefined : r.jobName),
      measures: [{ label: key, value: (r) => summaryNumber(r, key) }],
      empty,
    });
  return [
    chart("Facts published per run, per supplier (by run order)", "facts", "No published run yet."),
    chart(
      "Share of bad rows per run, per supplier (by run order)",
      "bad_ratio",
      "No run read rows yet.",
    ),
    chart(
      "Age of the published state at each run, hours, per supplier (by run order)",
      "state_age_hours",
      "No state published yet.",
    ),
  ];
}
