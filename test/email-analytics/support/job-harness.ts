import { sql } from "kysely";
import { onTestFinished } from "vitest";
import type { Clock } from "../../../src/engine/clock/clock.ts";
import { Registry } from "../../../src/engine/registry/registry.ts";
import { executeRun, type RunReport } from "../../../src/engine/runs/job-runner.ts";
import { pipelineServices } from "../../../src/engine/runs/pipeline-services.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { typed } from "../../../src/infra/db/open-database.ts";
import {
  type MailgunFake,
  startMailgunFake,
} from "../../../src/pipelines/email-analytics/fake/mailgun-fake.ts";
import { emailAnalyticsPipeline } from "../../../src/pipelines/email-analytics/index.ts";
import type { EmailAnalyticsSettings } from "../../../src/pipelines/email-analytics/settings.ts";
import type { EmailAnalyticsTables } from "../../../src/pipelines/email-analytics/tables.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { openTestRuntime } from "../../../src/testing/test-runtime.ts";
import { captureLogger, type LogLine } from "../../books/support/books-harness.ts";

export type { LogLine };

/** A migrated runtime with the email-analytics pipeline pointed at a fresh fake Mailgun. */
export async function openEaRuntime(
  h: DialectHarness,
  options: { clock?: Clock; settings?: Record<string, unknown> } = {},
): Promise<{ runtime: Runtime; fake: MailgunFake; logs: LogLine[] }> {
  const fake = await startMailgunFake({ clock: options.clock });
  onTestFinished(() => fake.close());
  const base = await openTestRuntime(h, {
    clock: options.clock,
    registry: new Registry([emailAnalyticsPipeline]),
  });
  const { logger, lines } = captureLogger();
  const runtime: Runtime = {
    ...base,
    logger,
    environ: { MAILGUN_API_KEY: fake.apiKey },
    config: {
      ...base.config,
      pipelines: {
        "email-analytics": {
          base_url: fake.url,
          domain: fake.domain,
          use_env: false,
          retry_max_attempts: 1,
          ...options.settings,
        },
      },
    },
  };
  return { runtime, fake, logs: lines };
}

/** The pipeline's services on the runtime, as a command, route or panel gets them. */
export function eaServices(runtime: Runtime) {
  return pipelineServices<EmailAnalyticsSettings>(runtime, "email-analytics");
}

/** The pipeline's tables on the runtime's database. */
export function eaDb(runtime: Runtime) {
  return typed<EmailAnalyticsTables>(runtime.db);
}

/** Runs `email-analytics.fetch` once. */
export function runFetch(
  runtime: Runtime,
  params: Record<string, unknown> = {},
  jobName = "ea-fetch",
): Promise<RunReport> {
  return executeRun(runtime, { jobName, jobType: "email-analytics.fetch", params });
}

/** A 24-hex id with a readable prefix. */
export function hexId(prefix: string, n: number): string {
  return `${prefix}${n.toString(16).padStart(24 - prefix.length, "0")}`;
}

/** What seedNewsletter created. */
export interface Seeded {
  newsletterId: string;
  emails: Array<{ id: string; providerId: string; trackOpens: boolean }>;
  members: Array<{ id: string; email: string }>;
}

/**
 * Inserts a newsletter's emails (each with one batch), members subscribed to it and a recipient
 * row per (email, member), as Ghost has them after sending.
 */
export async function seedNewsletter(
  runtime: Runtime,
  options: { emails?: number; members?: number; trackOpens?: boolean[]; sentAt?: Date } = {},
): Promise<Seeded> {
  const db = eaDb(runtime);
  const nEmails = options.emails ?? 1;
  const nMembers = options.members ?? 3;
  const at = (options.sentAt ?? new Date(Date.now() - 3 * 3600_000)).toISOString();
  const newsletterId = hexId("a1", 1);
  const members = Array.from({ length: nMembers }, (_, i) => ({
    id: hexId("b0", i),
    email: `member${i}@example.com`,
  }));
  const emails = Array.from({ length: nEmails }, (_, i) => ({
    id: hexId("e0", i),
    providerId: `20260101.${i}@mg.example.com`,
    trackOpens: options.trackOpens?.[i] ?? true,
  }));
  const memberRows = members.map((m) => ({
    id: m.id,
    uuid: `uuid-${m.id}`,
    email: m.email,
    status: "free",
    name: null,
    email_count: 0,
    email_opened_count: 0,
    email_open_rate: null,
    email_disabled: 0,
    last_seen_at: null,
    created_at: at,
    updated_at: null,
  }));
  for (let k = 0; k < memberRows.length; k += 200) {
    await db
      .insertInto("members")
      .values(memberRows.slice(k, k + 200))
      .execute();
    await db
      .insertInto("members_newsletters")
      .values(
        members.slice(k, k + 200).map((m, j) => ({
          id: hexId("c0", k + j),
          member_id: m.id,
          newsletter_id: newsletterId,
        })),
      )
      .execute();
  }
  for (const [i, e] of emails.entries()) {
    await db
      .insertInto("emails")
      .values({
        id: e.id,
        post_id: hexId("f0", i),
        uuid: `uuid-${e.id}`,
        status: "submitted",
        subject: `Issue ${i + 1}`,
        email_count: nMembers,
        delivered_count: 0,
        opened_count: 0,
        failed_count: 0,
        track_opens: e.trackOpens ? 1 : 0,
        track_clicks: 1,
        newsletter_id: newsletterId,
        submitted_at: at,
        created_at: at,
        updated_at: null,
      })
      .execute();
    const batchId = hexId("ba", i);
    await db
      .insertInto("email_batches")
      .values({
        id: batchId,
        email_id: e.id,
        provider_id: e.providerId,
        status: "submitted",
        created_at: at,
        updated_at: at,
      })
      .execute();
    const rows = members.map((m, j) => ({
      id: hexId(`d${i.toString(16).padStart(3, "0")}`, j),
      email_id: e.id,
      member_id: m.id,
      batch_id: batchId,
      processed_at: at,
      delivered_at: null,
      opened_at: null,
      failed_at: null,
      member_uuid: `uuid-${m.id}`,
      member_email: m.email,
      member_name: null,
    }));
    for (let k = 0; k < rows.length; k += 200) {
      await db
        .insertInto("email_recipients")
        .values(rows.slice(k, k + 200))
        .execute();
    }
  }
  return { newsletterId, emails, members };
}

/** The recipient row of (email, member). */
export async function recipientRow(runtime: Runtime, emailId: string, memberEmail: string) {
  return eaDb(runtime)
    .selectFrom("email_recipients")
    .selectAll()
    .where("email_id", "=", emailId)
    .where("member_email", "=", memberEmail)
    .executeTakeFirstOrThrow();
}

/** A `jobs` row by name. */
export async function jobRow(runtime: Runtime, name: string) {
  return eaDb(runtime).selectFrom("jobs").selectAll().where("name", "=", name).executeTakeFirst();
}

/** Minutes before now as a Date. */
export function minutesAgo(minutes: number, from = Date.now()): Date {
  return new Date(from - minutes * 60_000);
}

/** Makes every update of members.email_count fail, as a broken aggregation would. */
export async function refuseMemberRecounts(
  runtime: Runtime,
  dialect: "sqlite" | "postgres",
): Promise<void> {
  const db = eaDb(runtime);
  if (dialect === "sqlite") {
    await sql`create trigger boom before update of email_count on members begin select raise(abort, 'aggregation refused'); end`.execute(
      db,
    );
    return;
  }
  await sql`create function boom() returns trigger language plpgsql as $$ begin raise exception 'aggregation refused'; end $$`.execute(
    db,
  );
  await sql`create trigger boom before update of email_count on members for each row execute function boom()`.execute(
    db,
  );
}
