import type { Kysely } from "kysely";
import { columnTypes, createLedgerTable, dialectOf } from "tidemark/kit";

/** The packages table and the ledger, on SQLite and Postgres. */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("registry_feed_package")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("latest", "text", (c) => c.notNull())
    .addColumn("version_count", "integer", (c) => c.notNull())
    .addColumn("license", "text")
    .addColumn("modified_at", t.timestamp, (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .execute();
  await createLedgerTable(db, "registry_feed_ledger");
}

export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("registry_feed_ledger").execute();
  await db.schema.dropTable("registry_feed_package").execute();
}
