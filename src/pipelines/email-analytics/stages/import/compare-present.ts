import { rowsWhereIn as lookup } from "../../repos/import-repo.ts";
import type { Cell } from "./coerce.ts";
import { type ColumnKind, IMPORT_COLUMNS, type ImportTable } from "./columns.ts";
import type { Db, Entry } from "./import-records.ts";

/** Records whose id the database already holds: kept as stored, whatever the file says. */
export interface PresentRecords {
  /** How many. */
  count: number;
  /** How many of them the file gives other values than the stored row (not applied). */
  differing: number;
  /** The first of those by line, to say where to look. */
  first?: { line: number; id: string; column: string };
}

/** Compares each present record's given columns with its stored row. */
export async function comparePresent(
  db: Db,
  table: ImportTable,
  entries: Entry[],
): Promise<PresentRecords> {
  if (entries.length === 0) return { count: 0, differing: 0 };
  const kinds = new Map(IMPORT_COLUMNS[table].map((c) => [c.name, c.kind]));
  const columns = [...new Set(entries.flatMap((e) => Object.keys(e.row)))].filter((c) =>
    kinds.has(c),
  );
  const stored = new Map(
    (await lookup<Record<string, unknown>>(db, table, "id", ids(entries), columns)).map((r) => [
      String(r.id),
      r,
    ]),
  );
  let differing = 0;
  let first: PresentRecords["first"];
  for (const { line, row } of [...entries].sort((a, b) => a.line - b.line)) {
    const had = stored.get(row.id as string);
    if (had === undefined) continue; // deleted since it was looked up: the insert keeps it
    const column = Object.keys(row).find(
      (c) => kinds.has(c) && !sameValue(kinds.get(c) as ColumnKind, row[c] as Cell, had[c]),
    );
    if (column === undefined) continue;
    differing++;
    first ??= { line, id: row.id as string, column };
  }
  return { count: entries.length, differing, ...(first ? { first } : {}) };
}

function ids(entries: Entry[]): string[] {
  return entries.map((e) => e.row.id as string);
}

/** The file's checked cell equals the stored value (timestamps by instant, flags as 0/1). */
function sameValue(kind: ColumnKind, cell: Cell, stored: unknown): boolean {
  if (cell === null || stored === null || stored === undefined) {
    return cell === null && (stored === null || stored === undefined);
  }
  if (kind.t === "time") return Date.parse(String(cell)) === Date.parse(String(stored));
  if (kind.t === "bool" || kind.t === "int") return Number(cell) === Number(stored);
  return String(cell) === String(stored);
}
