import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * The queue messages a run sent (its children): the dashboard shows their state on the run and
 * its job, so a run that fanned work out is not read as "all fine" while that work fails.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_run_children")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("queue", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("sent_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("tm_run_children_pk", ["run_id", "message_id"])
    .execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_run_children").execute();
}
