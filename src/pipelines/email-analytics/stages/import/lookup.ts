import type { Kysely } from "kysely";
import type { EmailAnalyticsTables } from "../../tables.ts";
import type { CheckedRow } from "./coerce.ts";
import type { ImportTable } from "./columns.ts";

/** The typed database handle the importer uses. */
export type Db = Kysely<EmailAnalyticsTables>;
/** One record of the file and its line. */
export type Entry = { line: number; row: CheckedRow };
/** The file's records per table, by id. */
export type ByTable = Record<ImportTable, Map<string, Entry>>;

const CHUNK = 500;

/** Rows of `table` whose `column` is one of `values`, queried 500 at a time. */
export async function lookup<T>(
  db: Db,
  table: ImportTable,
  column: string,
  values: Iterable<string>,
  select: readonly string[],
): Promise<T[]> {
  const all = [...new Set(values)];
  const out: T[] = [];
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await db
      .selectFrom(table)
      // biome-ignore lint/suspicious/noExplicitAny: table and columns are chosen at run time from IMPORT_COLUMNS.
      .select(select as any)
      // biome-ignore lint/suspicious/noExplicitAny: as above.
      .where(column as any, "in", all.slice(i, i + CHUNK))
      .execute();
    out.push(...(rows as T[]));
  }
  return out;
}
