import { type Kysely, sql } from "kysely";
import { columnTypes, dialectOf, ensureSchema } from "tidemark/kit";

/** The cursor table plus the books, job links, mail history and quota tables. */
export async function up(db: Kysely<object>): Promise<void> {
  const dialect = dialectOf(db);
  const t = columnTypes(dialect);
  // A `DEFAULT (datetime('now'))`, kept as a safety net in each dialect's own syntax
  // (ISO-8601 on SQLite too); the DAO always writes the value itself.
  const now = dialect === "postgres" ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
  await db.schema
    .createTable("collect_cursor")
    .ifNotExists()
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("query_set_hash", "text", (c) => c.notNull())
    .addColumn("start_index", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_exhausted", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_updated_at", t.timestamp, (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint("collect_cursor_pk", ["job_name", "query_set_hash"])
    .execute();

  await ensureSchema(db, "books");
  await db.schema
    .createTable("books.volume")
    .addColumn("volume_id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("subtitle", "text")
    .addColumn("authors", t.json, (c) => c.notNull())
    .addColumn("publisher", "text")
    .addColumn("published_date", "text")
    .addColumn("published_sort", "integer", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("isbn13", "text")
    .addColumn("isbn10", "text")
    .addColumn("page_count", "integer")
    .addColumn("categories", t.json, (c) => c.notNull())
    .addColumn("average_rating", "real")
    .addColumn("ratings_count", "integer")
    .addColumn("language", "text")
    .addColumn("print_type", "text")
    .addColumn("thumbnail", "text")
    .addColumn("info_link", "text")
    .addColumn("canonical_link", "text")
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("first_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("books_volume_isbn13").on("books.volume").column("isbn13").execute();

  await db.schema
    .createTable("books.job_volume")
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("volume_id", "text", (c) => c.notNull())
    .addColumn("query", "text", (c) => c.notNull())
    .addColumn("first_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("first_run_id", "text", (c) => c.notNull())
    .addColumn("collect_rank", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("books_job_volume_pk", ["job_name", "volume_id"])
    .execute();

  await db.schema
    .createTable("books.mail_history")
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("volume_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("sent_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("books_mail_history_pk", ["job_name", "volume_id"])
    .execute();

  await db.schema
    .createTable("books.quota_usage")
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("requests", "integer", (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("books_quota_usage_pk", ["key_hash", "day"])
    .execute();
}

/** Drops every books table. */
export async function down(db: Kysely<object>): Promise<void> {
  for (const table of [
    "books.quota_usage",
    "books.mail_history",
    "books.job_volume",
    "books.volume",
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropTable("collect_cursor").execute();
}
