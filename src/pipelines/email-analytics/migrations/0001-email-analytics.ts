import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "tidemark/kit";

/**
 * Ghost's tables with Ghost's names, columns, defaults, unique constraints and indexes (index
 * names as knex gives them: `<table>_<columns>_index`). Ghost runs on MySQL, where every foreign
 * key gets an index of its own; SQLite and Postgres do not do that, so the foreign keys the fetch
 * looks up by (`email_recipient_failures.email_recipient_id`, `email_batches.email_id`,
 * `email_recipients.batch_id`, `members_newsletters.member_id`) get an explicit index here, and
 * `email_batches.provider_id` (Ghost finds an event's email by it) too.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await createMemberTables(db, t);
  await createEmailTables(db, t);
  await createOtherTables(db, t);
}

type ColumnTypes = ReturnType<typeof columnTypes>;

/** `varchar(n)`: Ghost's ids are 24 characters. */
const id = (n = 24) => `varchar(${n})` as const;

/** `members` and `members_newsletters`. */
async function createMemberTables(db: Kysely<object>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("members")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("uuid", id(36), (c) => c.notNull().unique())
    .addColumn("email", id(191), (c) => c.notNull().unique())
    .addColumn("status", id(50), (c) => c.notNull().defaultTo("free"))
    .addColumn("name", id(191))
    .addColumn("email_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("email_opened_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("email_open_rate", "integer")
    .addColumn("email_disabled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_seen_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp)
    .execute();
  await index(db, "members", ["email_open_rate"]);
  await index(db, "members", ["email_disabled"]);

  await db.schema
    .createTable("members_newsletters")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("member_id", id(), (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("newsletter_id", id(), (c) => c.notNull())
    .execute();
  await index(db, "members_newsletters", ["newsletter_id", "member_id"]);
  await index(db, "members_newsletters", ["member_id"]);
}

/** `emails`, `email_batches`, `email_recipients`, `email_recipient_failures`. */
async function createEmailTables(db: Kysely<object>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("emails")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("post_id", id(), (c) => c.notNull().unique())
    .addColumn("uuid", id(36), (c) => c.notNull())
    .addColumn("status", id(50), (c) => c.notNull().defaultTo("pending"))
    .addColumn("subject", id(300))
    .addColumn("email_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("opened_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("track_opens", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("track_clicks", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("newsletter_id", id())
    .addColumn("submitted_at", t.timestamp, (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp)
    .execute();

  await db.schema
    .createTable("email_batches")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("email_id", id(), (c) => c.notNull().references("emails.id"))
    .addColumn("provider_id", id(255))
    .addColumn("status", id(50), (c) => c.notNull().defaultTo("pending"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await index(db, "email_batches", ["email_id"]);
  await index(db, "email_batches", ["provider_id"]);

  await db.schema
    .createTable("email_recipients")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("email_id", id(), (c) => c.notNull().references("emails.id"))
    .addColumn("member_id", id(), (c) => c.notNull())
    .addColumn("batch_id", id(), (c) => c.notNull().references("email_batches.id"))
    .addColumn("processed_at", t.timestamp)
    .addColumn("delivered_at", t.timestamp)
    .addColumn("opened_at", t.timestamp)
    .addColumn("failed_at", t.timestamp)
    .addColumn("member_uuid", id(36), (c) => c.notNull())
    .addColumn("member_email", id(191), (c) => c.notNull())
    .addColumn("member_name", id(191))
    .execute();
  await index(db, "email_recipients", ["member_id"]);
  await index(db, "email_recipients", ["email_id", "member_email"]);
  await index(db, "email_recipients", ["email_id", "delivered_at"]);
  await index(db, "email_recipients", ["email_id", "opened_at"]);
  await index(db, "email_recipients", ["email_id", "failed_at"]);
  await index(db, "email_recipients", ["batch_id"]);

  await db.schema
    .createTable("email_recipient_failures")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("email_id", id(), (c) => c.notNull().references("emails.id"))
    .addColumn("member_id", id())
    .addColumn("email_recipient_id", id(), (c) => c.notNull().references("email_recipients.id"))
    .addColumn("code", "integer", (c) => c.notNull())
    .addColumn("enhanced_code", id(50))
    .addColumn("message", id(2000), (c) => c.notNull())
    .addColumn("severity", id(50), (c) => c.notNull().defaultTo("permanent"))
    .addColumn("failed_at", t.timestamp, (c) => c.notNull())
    .addColumn("event_id", id(255))
    .execute();
  await index(db, "email_recipient_failures", ["email_recipient_id"]);
  await index(db, "email_recipient_failures", ["email_id"]);
}

/** `jobs`, `suppressions`, `email_spam_complaint_events`. */
async function createOtherTables(db: Kysely<object>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("name", id(191), (c) => c.notNull().unique())
    .addColumn("status", id(50), (c) => c.notNull().defaultTo("queued"))
    .addColumn("started_at", t.timestamp)
    .addColumn("finished_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp)
    .addColumn("metadata", id(2000))
    .addColumn("queue_entry", "integer")
    .execute();

  await db.schema
    .createTable("suppressions")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("email", id(191), (c) => c.notNull().unique())
    .addColumn("email_id", id(), (c) => c.references("emails.id"))
    .addColumn("reason", id(50), (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("email_spam_complaint_events")
    .addColumn("id", id(), (c) => c.primaryKey())
    .addColumn("member_id", id(), (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("email_id", id(), (c) => c.notNull().references("emails.id"))
    .addColumn("email_address", id(191), (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addUniqueConstraint("email_spam_complaint_events_email_id_member_id_unique", [
      "email_id",
      "member_id",
    ])
    .execute();
}

/** Drops every table of the pipeline, children first. */
export async function down(db: Kysely<object>): Promise<void> {
  for (const table of [
    "email_spam_complaint_events",
    "suppressions",
    "jobs",
    "email_recipient_failures",
    "email_recipients",
    "email_batches",
    "emails",
    "members_newsletters",
    "members",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

/** `create index <table>_<cols>_index on <table> (<cols>)`, knex's naming. */
async function index(db: Kysely<object>, table: string, columns: string[]): Promise<void> {
  await db.schema
    .createIndex(`${table}_${columns.join("_")}_index`)
    .on(table)
    .columns(columns)
    .execute();
}
