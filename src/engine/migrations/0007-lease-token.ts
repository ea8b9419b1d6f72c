import type { Kysely } from "kysely";

/**
 * The fencing token of a lease: a generation number that grows on every take-over, checked
 * (with the holder) by every fenced commit, so a run that lost its lease can commit nothing.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema
    .alterTable("tm_leases")
    .addColumn("token", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_leases").dropColumn("token").execute();
}
