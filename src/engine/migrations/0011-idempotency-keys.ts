import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * The `Idempotency-Key` of run requests made over HTTP: a client retrying a request whose
 * answer it lost gets the run the first attempt queued, not a second run. A key is kept 24 h.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_idempotency_keys")
    .addColumn("idempotency_key", "text", (c) => c.primaryKey())
    // The job and options the key was first used with: the same key with others is refused.
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tm_idempotency_keys_created")
    .on("tm_idempotency_keys")
    .column("created_at")
    .execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_idempotency_keys").execute();
}
