import type { PanelCell, PanelModule, PipelineServices } from "tidemark";
import { lastRunText, type SupplierStatus, snapshotsStatus } from "../monitoring/status.ts";
import type { SnapshotSettings } from "../settings.ts";
import { supplierCharts } from "./snapshots-charts.ts";

function age(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

function supplierRow(s: SupplierStatus): PanelCell[] {
  const last = lastRunText(s);
  return [
    s.supplier,
    s.state ? age(s.state.age_seconds) : { text: "never published", tone: "muted" },
    s.state ? s.state.fact_count : null,
    last
      ? {
          text: last,
          tone:
            s.last_run?.status === "PASS" ? "ok" : s.last_run?.status === "FAIL" ? "bad" : "muted",
        }
      : null,
    {
      text: String(s.consecutive_fails),
      tone: s.alerts.includes("REPEATED_FAIL") ? "bad" : undefined,
    } as PanelCell,
    {
      text: String(s.identical_sha.count),
      tone: s.alerts.includes("SHA_DRIFT") ? "warn" : undefined,
    } as PanelCell,
    s.inbox_files,
    s.alerts.length ? { text: s.alerts.join(", "), tone: "bad" } : { text: "none", tone: "ok" },
  ];
}

/** The snapshots panel: each supplier's state and alerts, and their trends over runs. */
export const snapshotsPanel: PanelModule = {
  async view({ services }) {
    // The registry hands the panel this pipeline's settings, validated with snapshotsSettings.
    const snapshots = services as PipelineServices<SnapshotSettings>;
    const statuses = await snapshotsStatus(snapshots);
    const alerting = statuses.filter((s) => s.alerts.length > 0).length;
    return {
      blocks: [
        {
          kind: "stats",
          items: [
            { label: "suppliers", value: statuses.length },
            { label: "with alerts", value: alerting, tone: alerting > 0 ? "bad" : "ok" },
          ],
        },
        {
          kind: "table",
          title: "Suppliers",
          columns: [
            "Supplier",
            "State age",
            "Facts",
            "Last run",
            "FAILs in a row",
            "Same SHA in a row",
            "Inbox",
            "Alerts",
          ],
          empty: "No supplier yet: add one with tidemark snapshots supplier add.",
          rows: statuses.map(supplierRow),
        },
        ...(await supplierCharts(snapshots)),
      ],
    };
  },
};
