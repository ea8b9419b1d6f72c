import type { Kysely } from "kysely";
import { columnTypes, createLedgerTable, dialectOf } from "tidemark/kit";

/** The records table and the ledger (`tidemark db migrate` runs it on SQLite and Postgres). */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("starter_kit_record")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("starter_kit_record_updated_at")
    .on("starter_kit_record")
    .column("updated_at")
    .execute();
  await createLedgerTable(db, "starter_kit_ledger");
}

export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("starter_kit_ledger").execute();
  await db.schema.dropTable("starter_kit_record").execute();
}
