import type { Kysely } from "kysely";

/**
 * `apl.item.applied_sig`: the digest of every value the item applier wrote for an item, so a
 * re-apply of an unchanged item compares one column instead of reading its images, tags and
 * snapshots. Items written before this migration have none and are compared in full once.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("apl.item").addColumn("applied_sig", "text").execute();
}

/** Drops the column. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("apl.item").dropColumn("applied_sig").execute();
}
