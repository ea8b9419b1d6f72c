import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * The params each run ran with (validated, defaults filled): a job's stored params may change
 * after its runs, and a run's page must show what that run used. Null for runs recorded before.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema.alterTable("tm_runs").addColumn("params", t.json).execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_runs").dropColumn("params").execute();
}
