import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { DemoContext, PipelineServices } from "tidemark";
import { formatTable } from "tidemark/kit";
import {
  csvText,
  MINIMAL_CONFIG,
  stockRows,
  writeSupplierConfig,
  writeXlsxFile,
} from "./fake/supplier-files.ts";
import { lastRunText, snapshotsStatus } from "./monitoring/status.ts";
import type { SnapshotSettings } from "./settings.ts";
import { describeResult } from "./stages/ingest/describe-result.ts";
import type { IngestResult } from "./stages/ingest/types.ts";
import { inboxDir } from "./stages/intake/layout/tree.ts";
import { ensureSupplierJob } from "./stages/intake/suppliers/supplier-job.ts";

const XLSX_CONFIG = `min_fact_count: 1
max_bad_ratio: 0.10
allow_empty_snapshot: false
format: xlsx
key: sku
file_stability_window: 0
categories: { from: sheet }
columns:
  - { name: sku, type: string, required: true }
  - { name: qty, type: integer, required: true }
  - { name: price, type: decimal, minor_units: 2, as: price_minor, required: true }
  - { name: name, type: string }
`;

/**
 * `tidemark demo` for snapshots: a CSV supplier gets a good file, the same file again
 * (duplicate), a broken file and a changed snapshot; an XLSX supplier gets a 3-sheet workbook.
 * Each step is a run of the supplier's job `snapshots.<supplier>`; the status table and hints
 * that work as printed (`ctx.command`) close the demo.
 */
export async function runDemo(ctx: DemoContext): Promise<void> {
  // The demo's services carry this pipeline's settings, validated with snapshotsSettings.
  const services = ctx.services as PipelineServices<SnapshotSettings>;
  const { settings } = services;
  const inbox = (supplier: string) => path.join(settings.root, ...inboxDir(supplier).split("/"));
  await writeSupplierConfig(
    settings.configDir,
    "acme",
    MINIMAL_CONFIG.replace("file_stability_window: 30", "file_stability_window: 0"),
  );
  await writeSupplierConfig(settings.configDir, "acme-xlsx", XLSX_CONFIG);
  await mkdir(inbox("acme"), { recursive: true });
  ctx.print(`root: ${settings.root}`);
  ctx.print(`supplier configs: ${settings.configDir}`);

  const lastRun = new Map<string, string>();
  const run = async (supplier: string, step: string) => {
    ctx.print(`\n-- ${step}`);
    const job = await ensureSupplierJob(services, supplier);
    if (job.added) ctx.print(`(job ${job.name} added: the runs of ${supplier} belong to it)`);
    const report = await ctx.runJob({
      job: job.name,
      type: "snapshots.ingest",
      params: job.params as Record<string, unknown>,
    });
    lastRun.set(supplier, report.runId);
    const result = report.summary as unknown as IngestResult;
    if (result.run_id) for (const line of describeResult(result)) ctx.print(line);
    else ctx.print(`${supplier}: error ${report.error ?? null}`);
  };

  const rows = stockRows(40, 7).map(({ category: _c, ...r }) => r);
  const good = csvText(rows, { columns: ["sku", "name", "qty", "price"] });
  await writeFile(path.join(inbox("acme"), "stock_2026-01-15.csv"), good);
  await run("acme", "a good CSV snapshot (40 SKUs, names with commas)");

  await writeFile(path.join(inbox("acme"), "stock_2026-01-15_resent.csv"), good);
  await run("acme", "the same file sent again: a duplicate, quarantined; nothing published");

  await writeFile(
    path.join(inbox("acme"), "stock_broken.csv"),
    csvText(rows, { columns: ["sku", "name", "price"] }),
  );
  await run("acme", "a file without the required qty column: gate FAIL, quarantined");

  const next = rows.slice(5).map((r, i) => (i < 3 ? { ...r, qty: Number(r.qty) + 1 } : r));
  next.push({ sku: "SKU-NEW-0001", name: "Уровень, 600 мм", qty: 4, price: "1299.90" });
  next.push({ sku: "SKU-BAD-0001", name: "Рулетка", qty: "много", price: "350.00" });
  await writeFile(
    path.join(inbox("acme"), "stock_2026-01-16.csv"),
    csvText(next, { columns: ["sku", "name", "qty", "price"] }),
  );
  await run("acme", "next day's snapshot: 5 SKUs gone (stock 0 now), 1 new, 3 changed, 1 bad row");

  const all = stockRows(60, 11);
  await writeXlsxFile(path.join(inbox("acme-xlsx"), "stock.xlsx"), [
    { name: "Инструмент", rows: all.slice(0, 20) },
    { name: "Крепёж", rows: all.slice(20, 40) },
    { name: "Химия", rows: all.slice(40) },
  ]);
  await run("acme-xlsx", "a 3-sheet XLSX: one category_key per sheet");

  ctx.print("\n-- tidemark snapshots status");
  const statuses = await snapshotsStatus(services);
  ctx.print(
    formatTable(
      ["SUPPLIER", "STATE", "FACTS", "LAST RUN", "FAILS", "SAME SHA"],
      statuses.map((s) => [
        s.supplier,
        s.state?.run_id ?? null,
        s.state?.fact_count ?? null,
        lastRunText(s),
        s.consecutive_fails,
        s.identical_sha.count,
      ]),
    ),
  );
  ctx.print("");
  ctx.print(`Read a published state: ${ctx.command("snapshots read acme")}`);
  ctx.print(`Status per supplier:    ${ctx.command("snapshots status")}`);
  ctx.print(`The runs of acme:       ${ctx.command("runs ls --job snapshots.acme")}`);
  ctx.print(`Its last run:           ${ctx.command(`runs show ${lastRun.get("acme")}`)}`);
  ctx.print(`Its job:                ${ctx.command("job show snapshots.acme")}`);
}
