import type { Kysely } from "kysely";
import { columnTypes, dialectOf, ensureSchema } from "tidemark/kit";

/** Run history and inbox events of the snapshots pipeline. */
export async function up(db: Kysely<object>): Promise<void> {
  await ensureSchema(db, "snapshots");
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("snapshots.run")
    .addColumn("run_id", "text", (c) => c.primaryKey())
    .addColumn("supplier", "text", (c) => c.notNull())
    .addColumn("engine_run_id", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("reason_code", "text")
    .addColumn("detail", "text")
    .addColumn("input_filename", "text")
    .addColumn("input_sha256", "text")
    .addColumn("good_rows", "integer")
    .addColumn("bad_rows", "integer")
    .addColumn("added", "integer")
    .addColumn("removed", "integer")
    .addColumn("changed", "integer")
    .addColumn("started_at", t.timestamp, (c) => c.notNull())
    .addColumn("finished_at", t.timestamp)
    .addColumn("published_at", t.timestamp)
    .execute();
  await db.schema
    .createIndex("snapshots_run_supplier_started")
    .on("snapshots.run")
    .columns(["supplier", "started_at"])
    .execute();
  await db.schema
    .createTable("snapshots.input_event")
    .addColumn("id", t.serial, (c) => c.primaryKey())
    .addColumn("supplier", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("observed_at", t.timestamp, (c) => c.notNull())
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("disposition", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("snapshots_input_event_supplier")
    .on("snapshots.input_event")
    .columns(["supplier", "id"])
    .execute();
}

/** Drops the tables. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("snapshots.input_event").ifExists().execute();
  await db.schema.dropTable("snapshots.run").ifExists().execute();
}
