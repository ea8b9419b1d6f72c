import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { type Clock, type Database, UsageError } from "tidemark";
import { typed } from "tidemark/kit";
import { insertNewRows } from "../../repos/import-repo.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import { IMPORT_COLUMNS, type ImportTable, tableNamed } from "./columns.ts";
import type { PresentRecords } from "./compare-present.ts";
import { type ImportPlan, planImport } from "./plan-import.ts";
import { LineError, readCsv, readNdjson, type SourcedRecord } from "./read-records.ts";

/** What one import did per table. */
export interface ImportResult {
  file: string;
  /** Rows inserted per table. */
  inserted: Record<ImportTable, number>;
  /** Records whose id was already in the database (left unchanged). */
  present: Record<ImportTable, number>;
  /** Of those, how many the file gives other values than the stored row (not applied). */
  differing: Record<ImportTable, number>;
  /** The first such record per table, to say where to look. */
  firstDiffering: Partial<Record<ImportTable, { line: number; id: string; column: string }>>;
  dryRun: boolean;
}

/** Options of one import. */
export interface ImportOptions {
  /** CSV of this table (Ghost table name or NDJSON type); NDJSON when undefined. */
  table?: string;
  /** Check everything, write nothing. */
  dryRun?: boolean;
}

/** Rows per insert statement (Postgres allows 65,535 parameters; 15 columns × 500 fit). */

/**
 * Imports one NDJSON file (or a CSV of one table) into Ghost's tables: every line checked and
 * every reference resolved before anything is written, then one transaction inserting new ids
 * only (an id already present is left as it is, so importing twice changes nothing). A bad
 * line is a UsageError (exit 2) naming the file and line; nothing of the file is written.
 */
export async function importFile(
  db: Database,
  clock: Clock,
  file: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new UsageError(`${file}: no such file`);
  }
  let table: ImportTable | undefined;
  if (options.table !== undefined) {
    table = tableNamed(options.table);
    if (table === undefined) {
      throw new UsageError(
        `--table ${options.table}: expected one of ${Object.keys(IMPORT_COLUMNS).join(", ")}`,
      );
    }
  }
  const records: AsyncIterable<SourcedRecord> = table ? readCsv(file, table) : readNdjson(file);
  const k = typed<EmailAnalyticsTables>(db);
  let plan: ImportPlan;
  try {
    plan = await planImport(k, records, clock.now());
  } catch (err) {
    if (err instanceof LineError) {
      throw new UsageError(`${path.basename(file)}:${err.line}: ${err.message}`);
    }
    throw err;
  }
  const inserted = Object.fromEntries(
    Object.entries(plan.inserts).map(([t, rows]) => [t, rows.length]),
  ) as Record<ImportTable, number>;
  if (!options.dryRun) {
    // Parents first, in IMPORT_COLUMNS' order.
    const tables = Object.keys(IMPORT_COLUMNS) as ImportTable[];
    await insertNewRows(
      k,
      tables.map((t) => [t, plan.inserts[t]]),
    );
  }
  const detail = Object.entries(plan.presentDetail) as Array<[ImportTable, PresentRecords]>;
  return {
    file,
    inserted,
    present: plan.present,
    differing: Object.fromEntries(detail.map(([t, d]) => [t, d.differing])) as Record<
      ImportTable,
      number
    >,
    firstDiffering: Object.fromEntries(detail.flatMap(([t, d]) => (d.first ? [[t, d.first]] : []))),
    dryRun: options.dryRun ?? false,
  };
}

const LABELS: Record<ImportTable, string> = {
  members: "members",
  members_newsletters: "newsletter subscriptions",
  emails: "emails",
  email_batches: "email batches",
  email_recipients: "email recipients",
};

/** One line per table that the file touched, e.g. `members: 3 imported, 1 already present`. */
export function importLines(result: ImportResult): string[] {
  const verb = result.dryRun ? "to import" : "imported";
  const lines = [
    `${result.dryRun ? "checked" : "imported"} ${result.file}${result.dryRun ? " (dry run: nothing written)" : ""}`,
  ];
  for (const table of Object.keys(LABELS) as ImportTable[]) {
    const n = result.inserted[table];
    const p = result.present[table];
    if (n === 0 && p === 0) continue;
    lines.push(`  ${LABELS[table]}: ${n} ${verb}${p > 0 ? `, ${presentText(result, table)}` : ""}`);
  }
  if (lines.length === 1) lines.push("  no records");
  return lines;
}

/**
 * `2 already present (unchanged)`, or, when the file has other values for some, says they were
 * not applied and where the first one is: an import never overwrites a stored row.
 */
function presentText(result: ImportResult, table: ImportTable): string {
  const p = result.present[table];
  const d = result.differing[table];
  const first = result.firstDiffering[table];
  if (d === 0 || first === undefined) return `${p} already present (unchanged)`;
  const where = `first: line ${first.line}, id ${first.id}, ${first.column}`;
  return `${p} already present (kept as stored; ${d} with other values in the file, not applied — ${where})`;
}
