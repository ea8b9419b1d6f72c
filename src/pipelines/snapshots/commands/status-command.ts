import type { CliServices } from "tidemark";
import { lastRunText, snapshotsStatus } from "../monitoring/status.ts";
import type { SnapshotSettings } from "../settings.ts";
import { checkSupplierName } from "../stages/intake/layout/supplier-name.ts";
import { requireKnownSupplier } from "../stages/intake/suppliers/known-supplier.ts";

function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)}h`;
  return `${(seconds / 86_400).toFixed(1)}d`;
}

/** `tidemark snapshots status [supplier] [--json]`: the monitoring figures. */
export async function statusCommand(
  services: CliServices,
  supplier: string | undefined,
  opts: { json?: boolean },
): Promise<void> {
  if (supplier) checkSupplierName(supplier);
  const pipeline = await services.services<SnapshotSettings>();
  if (supplier) await requireKnownSupplier(pipeline, supplier);
  const statuses = await snapshotsStatus(pipeline, { supplier });
  if (opts.json) {
    services.printJson(supplier ? statuses[0] : statuses);
    return;
  }
  if (statuses.length === 0) {
    services.print("No supplier yet (no config file, inbox folder, state or run).");
    return;
  }
  services.printTable(
    [
      "SUPPLIER",
      "STATE",
      "AGE",
      "FACTS",
      "LAST RUN",
      "FAILS IN A ROW",
      "SAME SHA IN A ROW",
      "INBOX",
      "ALERTS",
    ],
    statuses.map((s) => [
      s.config === "ok" ? s.supplier : `${s.supplier} (config ${s.config})`,
      s.state?.run_id ?? null,
      s.state ? age(s.state.age_seconds) : null,
      s.state?.fact_count ?? null,
      lastRunText(s),
      s.consecutive_fails,
      s.identical_sha.count,
      s.inbox_files,
      s.alerts.length ? s.alerts.join(",") : null,
    ]),
  );
}
