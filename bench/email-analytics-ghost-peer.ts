// The Ghost peer of bench/email-analytics.ts, run in its own process: Ghost's published
// @tryghost/email-analytics-service and @tryghost/email-analytics-provider-mailgun (with
// mailgun-js) read the fake Mailgun, and an event processor applies each event the way Ghost's
// EmailEventStorage does — look the recipient up, then one UPDATE (or INSERT) per event — on
// the same tables; then Ghost's aggregateStats for every email and member it touched.
//
//   tsx bench/email-analytics-ghost-peer.ts '<json: {database, fake: {url, apiKey, domain}, since}>'
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type { Kysely } from "kysely";
import type { DatabaseTarget } from "../src/infra/config/load-config.ts";
import { openDatabase } from "../src/infra/db/open-database.ts";
import type { EmailAnalyticsTables } from "../src/pipelines/email-analytics/tables.ts";
import { childInput } from "./support/argv.ts";

const require = createRequire(import.meta.url);
const { EventProcessor, EmailAnalyticsService } = require("@tryghost/email-analytics-service");
const EmailAnalyticsProviderMailgun = require("@tryghost/email-analytics-provider-mailgun");
const mailgunJs = require("mailgun-js");

interface PeerInput {
  database: DatabaseTarget;
  fake: { url: string; apiKey: string; domain: string };
  /** Ghost's last seen event timestamp (ms); the provider starts 30 minutes before it. */
  since: number;
  /** Ghost's maxEvents (the provider stops after the page that reaches it). */
  maxEvents?: number;
}

/** What the old provider hands the processor. */
interface GhostEvent {
  type: string;
  severity?: string;
  recipientEmail: string;
  emailId?: string;
  providerId?: string;
  timestamp: Date;
}

const objectId = () => randomBytes(12).toString("hex");

/** Ghost's EmailEventStorage + EmailEventProcessor, one statement per effect. */
function ghostProcessor(db: Kysely<EmailAnalyticsTables>) {
  const recipientOf = async (event: GhostEvent, emailId: string) =>
    db
      .selectFrom("email_recipients")
      .select(["id", "member_id"])
      .where("email_id", "=", emailId)
      .where("member_email", "=", event.recipientEmail)
      .executeTakeFirst();
  const failure = async (event: GhostEvent, emailId: string, severity: string) => {
    const r = await recipientOf(event, emailId);
    if (!r) return false;
    const at = event.timestamp.toISOString();
    if (severity === "permanent") {
      await db
        .updateTable("email_recipients")
        .set({ failed_at: at })
        .where("id", "=", r.id)
        .where("failed_at", "is", null)
        .execute();
    }
    const existing = await db
      .selectFrom("email_recipient_failures")
      .select(["id", "severity", "failed_at"])
      .where("email_recipient_id", "=", r.id)
      .executeTakeFirst();
    const row = {
      email_id: emailId,
      member_id: r.member_id,
      email_recipient_id: r.id,
      code: 0,
      enhanced_code: null,
      message: "Error 0",
      severity,
      failed_at: at,
      event_id: null,
    };
    if (!existing)
      await db
        .insertInto("email_recipient_failures")
        .values({ id: objectId(), ...row })
        .execute();
    else if (existing.severity !== "permanent" && existing.failed_at <= at)
      await db
        .updateTable("email_recipient_failures")
        .set(row)
        .where("id", "=", existing.id)
        .execute();
    return true;
  };
  class GhostEventProcessor extends EventProcessor {
    async getEmailId(event: GhostEvent) {
      if (!event.providerId) return undefined;
      const batch = await db
        .selectFrom("email_batches")
        .select("email_id")
        .where("provider_id", "=", event.providerId)
        .executeTakeFirst();
      return batch?.email_id;
    }
    async getMemberId(event: GhostEvent) {
      const m = await db
        .selectFrom("members")
        .select("id")
        .where("email", "=", event.recipientEmail)
        .executeTakeFirst();
      return m?.id;
    }
    async handleDelivered(event: GhostEvent) {
      const r = await recipientOf(event, event.emailId as string);
      if (!r) return false;
      await db
        .updateTable("email_recipients")
        .set({ delivered_at: event.timestamp.toISOString() })
        .where("id", "=", r.id)
        .where("delivered_at", "is", null)
        .execute();
      return true;
    }
    async handleOpened(event: GhostEvent) {
      const r = await recipientOf(event, event.emailId as string);
      if (!r) return false;
      const at = event.timestamp.toISOString();
      await db
        .updateTable("email_recipients")
        .set({ opened_at: at })
        .where("id", "=", r.id)
        .where("opened_at", "is", null)
        .execute();
      // LastSeenAtUpdater: at most once a day.
      const day = `${at.slice(0, 10)}T00:00:00.000Z`;
      await db
        .updateTable("members")
        .set({ last_seen_at: at })
        .where("id", "=", r.member_id)
        .where((eb) => eb.or([eb("last_seen_at", "is", null), eb("last_seen_at", "<", day)]))
        .execute();
      return true;
    }
    async handlePermanentFailed(event: GhostEvent) {
      return failure(event, event.emailId as string, "permanent");
    }
    async handleTemporaryFailed(event: GhostEvent) {
      return failure(event, event.emailId as string, "temporary");
    }
    async handleUnsubscribed(event: GhostEvent) {
      const r = await recipientOf(event, event.emailId as string);
      if (!r) return false;
      const email = await db
        .selectFrom("emails")
        .select("newsletter_id")
        .where("id", "=", event.emailId as string)
        .executeTakeFirst();
      await db
        .deleteFrom("members_newsletters")
        .where("member_id", "=", r.member_id)
        .where("newsletter_id", "=", email?.newsletter_id ?? "")
        .execute();
      return true;
    }
    async handleComplained(event: GhostEvent) {
      const r = await recipientOf(event, event.emailId as string);
      if (!r) return false;
      await db
        .insertInto("email_spam_complaint_events")
        .values({
          id: objectId(),
          member_id: r.member_id,
          email_id: event.emailId as string,
          email_address: event.recipientEmail,
          created_at: event.timestamp.toISOString(),
        })
        .onConflict((oc) => oc.columns(["email_id", "member_id"]).doNothing())
        .execute();
      return true;
    }
  }
  return new GhostEventProcessor();
}

/** Ghost's aggregation queries, one email or member at a time. */
function ghostQueries(db: Kysely<EmailAnalyticsTables>, since: number) {
  return {
    shouldFetchStats: async () =>
      (await db.selectFrom("emails").select("id").limit(1).execute()).length > 0,
    getLastSeenEventTimestamp: async () => new Date(since),
    async aggregateEmailStats(emailId: string) {
      const count = async (column: "delivered_at" | "opened_at" | "failed_at") =>
        Number(
          (
            await db
              .selectFrom("email_recipients")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("email_id", "=", emailId)
              .where(column, "is not", null)
              .executeTakeFirstOrThrow()
          ).n,
        );
      await db
        .updateTable("emails")
        .set({
          delivered_count: await count("delivered_at"),
          opened_count: await count("opened_at"),
          failed_count: await count("failed_at"),
        })
        .where("id", "=", emailId)
        .execute();
    },
    async aggregateMemberStats(memberId: string) {
      const rows = await db
        .selectFrom("email_recipients")
        .innerJoin("emails", "emails.id", "email_recipients.email_id")
        .select(["email_recipients.opened_at", "emails.track_opens"])
        .where("email_recipients.member_id", "=", memberId)
        .execute();
      const opened = rows.filter((r) => r.opened_at !== null).length;
      const tracked = rows.filter((r) => r.track_opens === 1).length;
      const update: { email_count: number; email_opened_count: number; email_open_rate?: number } =
        { email_count: rows.length, email_opened_count: opened };
      if (tracked >= 5) update.email_open_rate = Math.round((opened / tracked) * 100);
      await db.updateTable("members").set(update).where("id", "=", memberId).execute();
    },
  };
}

async function main(): Promise<void> {
  const input = childInput<PeerInput>();
  const database = await openDatabase(input.database);
  const db = database.kysely as unknown as Kysely<EmailAnalyticsTables>;
  const url = new URL(input.fake.url);
  const mailgun = mailgunJs({
    apiKey: input.fake.apiKey,
    domain: input.fake.domain,
    protocol: url.protocol,
    host: url.hostname,
    port: url.port,
    endpoint: "/v3",
    retry: 5,
  });
  const config = { get: () => undefined };
  const provider = new EmailAnalyticsProviderMailgun({ config, settings: config, mailgun });
  const queries = ghostQueries(db, input.since);
  const service = new EmailAnalyticsService({
    config,
    settings: config,
    queries,
    eventProcessor: ghostProcessor(db),
    providers: [provider],
  });
  const started = performance.now();
  const result = await service.fetchLatest({
    maxEvents: input.maxEvents ?? Number.POSITIVE_INFINITY,
  });
  const fetchedMs = performance.now() - started;
  for (const emailId of result.emailIds) await queries.aggregateEmailStats(emailId);
  for (const memberId of result.memberIds) await queries.aggregateMemberStats(memberId);
  const totalMs = performance.now() - started;
  await database.close();
  process.stdout.write(
    `${JSON.stringify({ events: result.totalEvents, counts: { delivered: result.delivered, opened: result.opened, permanentFailed: result.permanentFailed, temporaryFailed: result.temporaryFailed, unsubscribed: result.unsubscribed, complained: result.complained, unprocessable: result.unprocessable }, fetchedMs, totalMs, emails: result.emailIds.length, members: result.memberIds.length, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
}

await main();
