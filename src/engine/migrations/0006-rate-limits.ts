import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/** Token buckets shared by every process that calls an API with one credential. */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_rate_limits")
    .addColumn("key", "text", (c) => c.primaryKey())
    // `real` is a double on SQLite; Postgres needs the name spelled out (its `real` is 4 bytes).
    .addColumn("tokens", dialectOf(db) === "postgres" ? "double precision" : "real", (c) =>
      c.notNull(),
    )
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
}

/** Drops the rate-limit table. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_rate_limits").execute();
}
