import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/** Cursors (watermarks) of pipelines whose source does not define a table of its own. */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_cursors")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", t.json, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
}

/** Drops the cursor table. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_cursors").execute();
}
