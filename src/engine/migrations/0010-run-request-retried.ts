import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * When a redelivered request ran its job again because its run was abandoned (the worker died
 * mid-run): claimed once, atomically, so a request is re-run at most once for that reason.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema.alterTable("tm_run_requests").addColumn("retried_at", t.timestamp).execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_run_requests").dropColumn("retried_at").execute();
}
