import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * When a worker's stop interrupted a requested run (grace period over): the one case in which
 * a redelivered request runs again, under a fresh run id. Every other redelivery of a request
 * whose run exists is acknowledged without running (exactly-once execution).
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema.alterTable("tm_run_requests").addColumn("interrupted_at", t.timestamp).execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_run_requests").dropColumn("interrupted_at").execute();
}
