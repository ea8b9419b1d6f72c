import type { PanelBlock, PanelCell, PanelModule, Runtime } from "../../../engine/index.ts";
import { typed } from "../../../engine/index.ts";
import { lastRunText, type SupplierStatus, snapshotsStatus } from "../monitoring/status.ts";
import type { SnapshotTables } from "../tables.ts";

/** Published runs shown in the trend chart, per supplier. */
const TREND_RUNS = 60;

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

/** Facts published per PASS run over time, one series per supplier (x aligned over all). */
async function trendBlock(runtime: Runtime, suppliers: readonly string[]): Promise<PanelBlock> {
  const db = typed<SnapshotTables>(runtime.db);
  const perSupplier = await Promise.all(
    suppliers.map(async (supplier) => {
      const rows = await db
        .selectFrom("snapshots.run")
        .select(["published_at", "good_rows"])
        .where("supplier", "=", supplier)
        .where("status", "=", "PASS")
        .where("published_at", "is not", null)
        .orderBy("published_at", "desc")
        .limit(TREND_RUNS)
        .execute();
      const points = new Map<number, number>();
      // Fractional seconds: two runs published within one second stay two points.
      for (const r of rows) points.set(Date.parse(r.published_at!) / 1000, r.good_rows ?? 0);
      return { supplier, points };
    }),
  );
  const withData = perSupplier.filter((s) => s.points.size > 0);
  const x = [...new Set(withData.flatMap((s) => [...s.points.keys()]))].sort((a, b) => a - b);
  return {
    kind: "chart",
    title: "Facts published per run",
    time: true,
    x,
    series: withData.map((s) => ({
      label: s.supplier,
      values: x.map((t) => s.points.get(t) ?? null),
    })),
    empty: "No published run yet.",
  };
}

/** The snapshots panel: each supplier's state and alerts, and the facts trend. */
export const snapshotsPanel: PanelModule = {
  async view({ runtime }) {
    const statuses = await snapshotsStatus(runtime);
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
        await trendBlock(
          runtime,
          statuses.map((s) => s.supplier),
        ),
      ],
    };
  },
};
