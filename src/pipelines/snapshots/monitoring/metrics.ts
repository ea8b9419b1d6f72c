/**
 * Prometheus metrics of the monitoring figures, registered on the server's registry through the
 * pipeline's `metrics` hook and read from `snapshotsStatus` on each scrape.
 */
import type { Registry as PromRegistry } from "prom-client";
import type { SupplierStatus } from "./status.ts";

/** One metric with its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: "gauge";
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

/** The metric families for a set of supplier statuses. */
export function snapshotMetricFamilies(statuses: readonly SupplierStatus[]): MetricFamily[] {
  const family = (
    name: string,
    help: string,
    value: (s: SupplierStatus) => number | undefined,
  ): MetricFamily => ({
    name,
    help,
    type: "gauge",
    samples: statuses.flatMap((s) => {
      const v = value(s);
      return v === undefined ? [] : [{ labels: { supplier: s.supplier }, value: v }];
    }),
  });
  return [
    family(
      "tidemark_snapshots_state_age_seconds",
      "Seconds since the supplier's current state was published; absent until one is published",
      (s) => s.state?.age_seconds,
    ),
    family(
      "tidemark_snapshots_state_facts",
      "Facts in the supplier's current published state",
      (s) => s.state?.fact_count,
    ),
    family(
      "tidemark_snapshots_consecutive_fails",
      "FAIL runs in a row since the last PASS (REPEATED_FAIL alert)",
      (s) => s.consecutive_fails,
    ),
    family(
      "tidemark_snapshots_identical_sha_streak",
      "Inbox files in a row with the same SHA-256 (SHA_DRIFT alert: the supplier resends one file)",
      (s) => s.identical_sha.count,
    ),
    family(
      "tidemark_snapshots_inbox_files",
      "Files waiting in the supplier's inbox",
      (s) => s.inbox_files,
    ),
    family(
      "tidemark_snapshots_last_run_pass",
      "1 when the supplier's latest PASS/FAIL run passed, 0 when it failed",
      (s) =>
        s.last_run && (s.last_run.status === "PASS" || s.last_run.status === "FAIL")
          ? Number(s.last_run.status === "PASS")
          : undefined,
    ),
    {
      name: "tidemark_snapshots_alert",
      help: "1 for each active alert of the supplier (REPEATED_FAIL, SHA_DRIFT, STATE_STALE)",
      type: "gauge",
      samples: statuses.flatMap((s) =>
        s.alerts.map((alert) => ({ labels: { supplier: s.supplier, alert }, value: 1 })),
      ),
    },
  ];
}

/**
 * Registers the families as prom-client gauges on `register`; each scrape calls `load` once
 * (shared by all gauges of that scrape).
 */
export async function registerSnapshotsMetrics(
  register: PromRegistry,
  load: () => Promise<readonly SupplierStatus[]>,
): Promise<void> {
  const { Gauge } = await import("prom-client");
  let cached: { at: number; data: Promise<readonly SupplierStatus[]> } | undefined;
  const current = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 1000) cached = { at: now, data: load() };
    return cached.data;
  };
  for (const template of snapshotMetricFamilies([])) {
    new Gauge({
      name: template.name,
      help: template.help,
      labelNames:
        template.name === "tidemark_snapshots_alert" ? ["supplier", "alert"] : ["supplier"],
      registers: [register],
      async collect() {
        this.reset();
        const family = snapshotMetricFamilies(await current()).find(
          (f) => f.name === template.name,
        );
        for (const s of family?.samples ?? []) this.set(s.labels, s.value);
      },
    });
  }
}
