import type { Kysely } from "kysely";
import type { EmailAnalyticsTables } from "../tables.ts";

/** The typed database handle the importer uses. */
type Db = Kysely<EmailAnalyticsTables>;
/** A table an import writes (members, emails, …). */
type Table = keyof EmailAnalyticsTables;

const CHUNK = 500;

/** Rows of `table` whose `column` is one of `values`, queried 500 at a time. */
export async function rowsWhereIn<T>(
  db: Db,
  table: Table,
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

/**
 * Inserts each table's rows in one transaction, in the order given (parents first), 500 per
 * statement; an id that appeared meanwhile is kept.
 */
export async function insertNewRows(
  db: Db,
  inserts: ReadonlyArray<[Table, ReadonlyArray<Record<string, unknown>>]>,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const [table, rows] of inserts) {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await tx
          .insertInto(table)
          .values(rows.slice(i, i + CHUNK) as never)
          .onConflict((oc) => oc.column("id").doNothing())
          .execute();
      }
    }
  });
}
