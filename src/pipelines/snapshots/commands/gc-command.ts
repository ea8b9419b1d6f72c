import { type CliServices, ExitCode, TidemarkError } from "tidemark";
import type { SnapshotSettings } from "../settings.ts";
import { type GcReport, runGc } from "../stages/gc/run-gc.ts";
import { formatBytes } from "../stages/ingest/byte-size.ts";
import { checkSupplierName } from "../stages/intake/layout/supplier-name.ts";
import { requireKnownSupplier } from "../stages/intake/suppliers/known-supplier.ts";

/**
 * `tidemark snapshots gc [--dry-run] [--supplier s] [--json]`: retention. A supplier
 * whose config is invalid is not collected: exit 2, named on standard error (with --supplier,
 * nothing else is printed; without, the others are collected and reported first).
 */
export async function gcCommand(
  services: CliServices,
  opts: { dryRun?: boolean; supplier?: string; json?: boolean },
): Promise<void> {
  if (opts.supplier !== undefined) checkSupplierName(opts.supplier);
  const pipeline = await services.services<SnapshotSettings>();
  if (opts.supplier !== undefined) await requireKnownSupplier(pipeline, opts.supplier);
  const report = await runGc(pipeline, { dryRun: opts.dryRun ?? false, supplier: opts.supplier });
  const invalid = report.skipped.filter((s) => s.reason === "invalid-config");
  // The supplier asked for was not collected at all: an error, not a report.
  if (opts.supplier !== undefined && invalid.length > 0) {
    throw new TidemarkError(`gc of ${opts.supplier} not done: ${invalid[0]!.why}`, ExitCode.usage);
  }
  if (opts.json) services.printJson(report);
  else printReport(services, report);
  if (invalid.length > 0) {
    throw new TidemarkError(
      `gc skipped supplier(s) with an invalid config: ${invalid.map((s) => s.supplier).join(", ")} (the others were collected)`,
      ExitCode.usage,
    );
  }
}

/** The report as tables: what was (or would be) deleted, states kept, suppliers skipped. */
function printReport(services: CliServices, report: GcReport): void {
  const verb = report.dryRun ? "would delete" : "deleted";
  if (report.deleted.length === 0)
    services.print(`Nothing to delete${report.dryRun ? " (dry run)" : ""}.`);
  else {
    services.print(
      `${verb} ${report.deleted.length} item(s), ${formatBytes(report.deletedBytes)} (${report.deletedBytes} bytes):`,
    );
    services.printTable(
      ["SUPPLIER", "KIND", "SIZE", "KEY", "WHY"],
      report.deleted.map((i) => [i.supplier, i.kind, i.size ?? "", i.key, i.why]),
    );
  }
  const kept = report.kept.filter((i) => i.kind === "state");
  if (kept.length > 0) {
    services.print("kept:");
    services.printTable(
      ["SUPPLIER", "KIND", "KEY", "WHY"],
      kept.map((i) => [i.supplier, i.kind, i.key, i.why]),
    );
  }
  for (const s of report.skipped) services.print(`skipped ${s.supplier}: ${s.why}`);
}
