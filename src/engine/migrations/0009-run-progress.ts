import type { Kysely } from "kysely";

/**
 * A running run's latest progress (JSON: label, done, total, figures, updated_at), so the
 * dashboard and `runs show` can show it while the run works; a finished run keeps its last one.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_runs").addColumn("progress", "text").execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_runs").dropColumn("progress").execute();
}
