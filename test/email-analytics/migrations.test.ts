// The email-analytics tables: Ghost's names, columns, defaults, unique constraints and indexes.
import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { type Database, typed } from "../../src/infra/db/open-database.ts";
import { down } from "../../src/pipelines/email-analytics/migrations/0001-email-analytics.ts";
import type { EmailAnalyticsTables } from "../../src/pipelines/email-analytics/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";

const scope = {
  name: "email-analytics",
  migrations: async () => ({
    "0001-email-analytics": await import(
      "../../src/pipelines/email-analytics/migrations/0001-email-analytics.ts"
    ),
  }),
};

const GHOST_COLUMNS: Record<string, string[]> = {
  emails: [
    "id",
    "post_id",
    "uuid",
    "status",
    "subject",
    "email_count",
    "delivered_count",
    "opened_count",
    "failed_count",
    "track_opens",
    "track_clicks",
    "newsletter_id",
    "submitted_at",
    "created_at",
    "updated_at",
  ],
  email_batches: ["id", "email_id", "provider_id", "status", "created_at", "updated_at"],
  email_recipients: [
    "id",
    "email_id",
    "member_id",
    "batch_id",
    "processed_at",
    "delivered_at",
    "opened_at",
    "failed_at",
    "member_uuid",
    "member_email",
    "member_name",
  ],
  email_recipient_failures: [
    "id",
    "email_id",
    "member_id",
    "email_recipient_id",
    "code",
    "enhanced_code",
    "message",
    "severity",
    "failed_at",
    "event_id",
  ],
  members: [
    "id",
    "uuid",
    "email",
    "status",
    "name",
    "email_count",
    "email_opened_count",
    "email_open_rate",
    "email_disabled",
    "last_seen_at",
    "created_at",
    "updated_at",
  ],
  members_newsletters: ["id", "member_id", "newsletter_id"],
  jobs: [
    "id",
    "name",
    "status",
    "started_at",
    "finished_at",
    "created_at",
    "updated_at",
    "metadata",
    "queue_entry",
  ],
  suppressions: ["id", "email", "email_id", "reason", "created_at"],
  email_spam_complaint_events: ["id", "member_id", "email_id", "email_address", "created_at"],
};

async function indexNames(db: Database, table: string): Promise<string[]> {
  const k = db.kysely;
  const rows =
    db.dialect === "postgres"
      ? await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where tablename = ${table}`.execute(k)
      : await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = ${table}`.execute(k);
  return rows.rows.map((r) => r.name);
}

describeEachDialect("email-analytics migrations", (h) => {
  it("creates Ghost's tables with Ghost's columns, then migrating again is a no-op", async () => {
    const db = await h.freshDatabase();
    expect(await migrateToLatest(db, [scope])).toEqual([
      { scope: "email-analytics", applied: ["0001-email-analytics"] },
    ]);
    const tables = await db.kysely.introspection.getTables();
    for (const [name, columns] of Object.entries(GHOST_COLUMNS)) {
      const table = tables.find((t) => t.name === name);
      expect(table, name).toBeDefined();
      expect(table?.columns.map((c) => c.name).sort(), name).toEqual([...columns].sort());
    }
    expect(await migrateToLatest(db, [scope])).toEqual([{ scope: "email-analytics", applied: [] }]);
  });

  it("has email_recipients' four indexes and the member_id index, named as knex names them", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    const names = await indexNames(db, "email_recipients");
    for (const index of [
      "email_recipients_email_id_member_email_index",
      "email_recipients_email_id_delivered_at_index",
      "email_recipients_email_id_opened_at_index",
      "email_recipients_email_id_failed_at_index",
      "email_recipients_member_id_index",
    ]) {
      expect(names).toContain(index);
    }
    expect(await indexNames(db, "members")).toContain("members_email_disabled_index");
    expect(await indexNames(db, "members_newsletters")).toContain(
      "members_newsletters_newsletter_id_member_id_index",
    );
  });

  it("fills Ghost's defaults and enforces Ghost's unique keys", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    // Untyped: the point is what the database fills when a column is left out.
    const k = db.kysely as Kysely<Record<string, Record<string, unknown>>>;
    const at = "2026-01-15T09:30:00.000Z";
    await k
      .insertInto("members")
      .values({ id: "m".repeat(24), uuid: "u1", email: "a@example.com", created_at: at })
      .execute();
    await k
      .insertInto("jobs")
      .values({ id: "j".repeat(24), name: "email-analytics-latest-opened", created_at: at })
      .execute();
    const member = await k.selectFrom("members").selectAll().executeTakeFirstOrThrow();
    expect(member).toMatchObject({
      status: "free",
      email_count: 0,
      email_opened_count: 0,
      email_open_rate: null,
      email_disabled: 0,
      last_seen_at: null,
      created_at: at,
    });
    const job = await k.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    expect(job.status).toBe("queued");
    expect(
      await typed<EmailAnalyticsTables>(db).selectFrom("jobs").select("name").execute(),
    ).toEqual([{ name: "email-analytics-latest-opened" }]);
    await expect(
      k
        .insertInto("members")
        .values({ id: "n".repeat(24), uuid: "u2", email: "a@example.com", created_at: at })
        .execute(),
    ).rejects.toThrow(/unique/i);
    await expect(
      k
        .insertInto("jobs")
        .values({ id: "k".repeat(24), name: "email-analytics-latest-opened", created_at: at })
        .execute(),
    ).rejects.toThrow(/unique/i);
  });

  it("keeps one spam complaint per (email, member)", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    const k = db.kysely as Kysely<Record<string, Record<string, unknown>>>;
    const at = "2026-01-15T09:30:00.000Z";
    const m = "m".repeat(24);
    const e = "e".repeat(24);
    await k
      .insertInto("members")
      .values({ id: m, uuid: "u", email: "a@x.io", created_at: at })
      .execute();
    await k
      .insertInto("emails")
      .values({ id: e, post_id: "p".repeat(24), uuid: "eu", submitted_at: at, created_at: at })
      .execute();
    const row = { member_id: m, email_id: e, email_address: "a@x.io", created_at: at };
    await k
      .insertInto("email_spam_complaint_events")
      .values({ id: "1".repeat(24), ...row })
      .execute();
    await expect(
      k
        .insertInto("email_spam_complaint_events")
        .values({ id: "2".repeat(24), ...row })
        .execute(),
    ).rejects.toThrow(/unique/i);
  });

  it("0002 adds email_analytics_pending, one row per (kind, entity_id)", async () => {
    const db = await h.freshDatabase();
    const all = {
      name: "email-analytics",
      migrations: async () => ({
        ...(await scope.migrations()),
        "0002-pending-stats": await import(
          "../../src/pipelines/email-analytics/migrations/0002-pending-stats.ts"
        ),
      }),
    };
    await migrateToLatest(db, [all]);
    const k = typed<EmailAnalyticsTables>(db);
    await k
      .insertInto("email_analytics_pending")
      .values({ kind: "member", entity_id: "m".repeat(24), opened: 0 })
      .execute();
    await expect(
      k
        .insertInto("email_analytics_pending")
        .values({ kind: "member", entity_id: "m".repeat(24), opened: 0 })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it("down drops every table", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    await down(db.kysely);
    const names = (await db.kysely.introspection.getTables()).map((t) => t.name);
    for (const table of Object.keys(GHOST_COLUMNS)) expect(names).not.toContain(table);
  });
});
