import type { Kysely } from "kysely";

/**
 * `email_analytics_pending`: the emails and members whose statistics wait for aggregation. It is
 * written in the same fenced commit as each batch of events (and its watermark) and emptied in
 * the commit that recounts them, so a run killed between the two leaves them here for the next
 * run instead of losing them with the process. Not one of Ghost's tables (Ghost keeps them in
 * memory), hence the pipeline's prefix.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema
    .createTable("email_analytics_pending")
    .addColumn("kind", "varchar(10)", (c) => c.notNull())
    .addColumn("entity_id", "varchar(24)", (c) => c.notNull())
    .addColumn("opened", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("email_analytics_pending_pkey", ["kind", "entity_id"])
    .execute();
}

/** Drops the table. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("email_analytics_pending").ifExists().execute();
}
