import { rowsWhereIn as lookup } from "../../repos/import-repo.ts";
import { checkReferences, checkUnique } from "./check-references.ts";
import type { Cell } from "./coerce.ts";
import { IMPORT_COLUMNS, type ImportTable } from "./columns.ts";
import { comparePresent, type PresentRecords } from "./compare-present.ts";
import { fillDefaults } from "./fill-defaults.ts";
import type { ByTable, Db, Entry } from "./import-records.ts";
import { LineError, type SourcedRecord } from "./read-records.ts";

/** Complete rows to insert per table (ids already in the database left out), in insert order. */
export interface ImportPlan {
  inserts: Record<ImportTable, Record<string, Cell>[]>;
  /** Records whose id the database already holds (left as they are). */
  present: Record<ImportTable, number>;
  /** The same, with how many of them the file gives other values (kept as stored). */
  presentDetail: Record<ImportTable, PresentRecords>;
}

const TABLES = Object.keys(IMPORT_COLUMNS) as ImportTable[];

/**
 * Collects a file's records, checks that ids are not given twice with different values, that
 * every reference resolves (in the file or the database) and that no unique key collides,
 * then fills the columns Ghost fills itself. Every problem is a LineError; the first by line
 * is thrown, so nothing is written.
 */
export async function planImport(
  db: Db,
  records: AsyncIterable<SourcedRecord>,
  now: Date,
): Promise<ImportPlan> {
  const byTable = Object.fromEntries(TABLES.map((t) => [t, new Map<string, Entry>()])) as ByTable;
  for await (const { line, table, row } of records) {
    const id = row.id as string;
    const seen = byTable[table].get(id);
    if (seen && JSON.stringify(seen.row) !== JSON.stringify(row)) {
      throw new LineError(
        line,
        `${table} id ${id} is already on line ${seen.line} with other values`,
      );
    }
    if (!seen) byTable[table].set(id, { line, row });
  }
  const problems: LineError[] = [];
  const present = {} as Record<ImportTable, number>;
  const existing = {} as Record<ImportTable, Set<string>>;
  for (const table of TABLES) {
    const rows = await lookup<{ id: string }>(db, table, "id", byTable[table].keys(), ["id"]);
    existing[table] = new Set(rows.map((r) => r.id));
    present[table] = existing[table].size;
  }
  const fresh = (table: ImportTable): Entry[] =>
    [...byTable[table].values()].filter((e) => !existing[table].has(e.row.id as string));

  await checkUnique(db, "members", ["email", "uuid"], fresh("members"), problems);
  await checkUnique(db, "emails", ["post_id"], fresh("emails"), problems);
  const members = await checkReferences(db, byTable, fresh, problems);
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line);
    const first = problems[0] as LineError;
    const more = problems.length - 1;
    throw new LineError(
      first.line,
      more > 0
        ? `${first.message} (and ${more} more problem${more > 1 ? "s" : ""})`
        : first.message,
    );
  }
  const presentDetail = {} as Record<ImportTable, PresentRecords>;
  for (const table of TABLES) {
    const held = [...byTable[table].values()].filter((e) =>
      existing[table].has(e.row.id as string),
    );
    presentDetail[table] = await comparePresent(db, table, held);
  }
  return { inserts: fillDefaults(byTable, fresh, members, now), present, presentDetail };
}
