import { type Kysely, sql } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/** The embedded queue's message table (see src/engine/queue/embedded/embedded-tables.ts). */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_queue_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("queue", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("payload", t.json, (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("retry_limit", "integer", (c) => c.notNull())
    .addColumn("retry_delay_ms", "integer", (c) => c.notNull())
    .addColumn("retry_backoff", "integer", (c) => c.notNull())
    .addColumn("visibility_ms", "integer", (c) => c.notNull())
    .addColumn("singleton_key", "text")
    .addColumn("due_at_ms", "bigint", (c) => c.notNull())
    .addColumn("lock_token", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("started_at", t.timestamp)
    .addColumn("finished_at", t.timestamp)
    .addColumn("last_error", "text")
    .execute();
  // One index serves claiming (state, queue, due ≤ now, in order), expiry, retention and stats.
  await db.schema
    .createIndex("tm_queue_messages_due")
    .on("tm_queue_messages")
    .columns(["state", "queue", "due_at_ms", "id"])
    .execute();
  // Singleton dedupe: a duplicate insert hits this index and is skipped (ON CONFLICT DO NOTHING).
  await db.schema
    .createIndex("tm_queue_messages_singleton")
    .on("tm_queue_messages")
    .columns(["queue", "singleton_key"])
    .unique()
    .where(sql<boolean>`singleton_key is not null and state in ('queued', 'active')`)
    .execute();
}

/** Drops the queue table. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_queue_messages").execute();
}
