import type { Kysely } from "kysely";
import { columnTypes, dialectOf, ensureSchema } from "../../infra/db/dialect.ts";

/**
 * Kysely type of a ledger table (a pipeline's `staging`): the latest content hash of every
 * target, where its raw document is, and which apply version last applied it.
 */
export interface LedgerTable {
  source: string;
  entity: string;
  source_id: string;
  content_hash: string;
  /** Raw store key of the latest normalized document. */
  s3_key: string;
  etag: string | null;
  /** When that raw document was saved (ISO-8601 UTC), as the blob store reported it. */
  saved_at: string;
  created_at: string;
  /** When the row last pointed at new content. */
  updated_at: string;
  /** When the apply of this content last completed; null until it has. */
  applied_at: string | null;
  /** The apply version that applied it; null until applied (reset when the content changes). */
  applied_version: number | null;
}

/** One ledger row as read. */
export type LedgerRow = LedgerTable;

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Throws unless `table` is `name` or `schema.name` of plain identifiers. */
export function checkLedgerTableName(table: string): void {
  if (!TABLE_NAME.test(table)) {
    throw new TypeError(
      `ledger table name ${JSON.stringify(table)} is not "name" or "schema.name"`,
    );
  }
}

/**
 * Creates a ledger table for a pipeline's migration, e.g. `createLedgerTable(db, "apl.staging")`:
 * primary key (source, entity, source_id), index (source, entity, saved_at). A schema-qualified
 * name gets its Postgres schema created; on SQLite it becomes `schema_name`.
 */
export async function createLedgerTable(db: Kysely<object>, table: string): Promise<void> {
  checkLedgerTableName(table);
  const dot = table.indexOf(".");
  if (dot > 0) await ensureSchema(db, table.slice(0, dot));
  const flat = table.replace(".", "_");
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable(table)
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("entity", "text", (c) => c.notNull())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("s3_key", "text", (c) => c.notNull())
    .addColumn("etag", "text")
    .addColumn("saved_at", t.timestamp, (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addColumn("applied_at", t.timestamp)
    .addColumn("applied_version", "integer")
    .addPrimaryKeyConstraint(`${flat}_pkey`, ["source", "entity", "source_id"])
    .execute();
  await db.schema
    .createIndex(`${flat}_saved_at_idx`)
    .on(table)
    .columns(["source", "entity", "saved_at"])
    .execute();
}
