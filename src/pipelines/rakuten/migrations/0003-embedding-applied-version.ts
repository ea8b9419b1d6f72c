import type { Kysely } from "kysely";

/**
 * `apl.item_embedding.applied_version`: the `EMBEDDING_APPLY_VERSION` a vector was stored under,
 * so bumping it re-embeds every item, as every other job's apply version re-applies.
 * Vectors stored before this migration were stored under version 1, the only one there was.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema
    .alterTable("apl.item_embedding")
    .addColumn("applied_version", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}

/** Drops the column. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("apl.item_embedding").dropColumn("applied_version").execute();
}
