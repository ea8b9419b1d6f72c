import { NotFoundError, type PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";

/** What `tidemark email-analytics stats <email-id>` shows. */
export interface EmailStats {
  id: string;
  subject: string | null;
  status: string;
  submitted_at: string;
  track_opens: boolean;
  /** The counters aggregation stored on the email. */
  email_count: number;
  delivered_count: number;
  opened_count: number;
  failed_count: number;
  /** Live counts from email_recipients (equal to the counters once aggregated). */
  recipients: { total: number; delivered: number; opened: number; failed: number };
  /** opened / delivered in percent (null before any delivery). */
  open_rate: number | null;
  failures: { permanent: number; temporary: number };
  spam_complaints: number;
}

/** Reads one email's statistics; NotFoundError (exit 2) for an unknown id. */
export async function emailStats(
  services: Pick<PipelineServices, "db">,
  emailId: string,
): Promise<EmailStats> {
  const db = typed<EmailAnalyticsTables>(services.db);
  const email = await db
    .selectFrom("emails")
    .selectAll()
    .where("id", "=", emailId)
    .executeTakeFirst();
  if (!email) throw new NotFoundError(`unknown email: ${emailId} (no such id in emails)`);
  const live = await db
    .selectFrom("email_recipients")
    .select((eb) => [
      eb.fn.countAll<number | string>().as("total"),
      eb.fn.count<number | string>("delivered_at").as("delivered"),
      eb.fn.count<number | string>("opened_at").as("opened"),
      eb.fn.count<number | string>("failed_at").as("failed"),
    ])
    .where("email_id", "=", emailId)
    .executeTakeFirst();
  const failures = await db
    .selectFrom("email_recipient_failures")
    .select((eb) => ["severity", eb.fn.countAll<number | string>().as("n")])
    .where("email_id", "=", emailId)
    .groupBy("severity")
    .execute();
  const complaints = await db
    .selectFrom("email_spam_complaint_events")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("email_id", "=", emailId)
    .executeTakeFirst();
  const bySeverity = (s: string) => Number(failures.find((f) => f.severity === s)?.n ?? 0);
  return {
    id: email.id,
    subject: email.subject,
    status: email.status,
    submitted_at: email.submitted_at,
    track_opens: Number(email.track_opens) === 1,
    email_count: email.email_count,
    delivered_count: email.delivered_count,
    opened_count: email.opened_count,
    failed_count: email.failed_count,
    recipients: {
      total: Number(live?.total ?? 0),
      delivered: Number(live?.delivered ?? 0),
      opened: Number(live?.opened ?? 0),
      failed: Number(live?.failed ?? 0),
    },
    open_rate:
      email.delivered_count > 0
        ? Math.round((email.opened_count / email.delivered_count) * 100)
        : null,
    failures: { permanent: bySeverity("permanent"), temporary: bySeverity("temporary") },
    spam_complaints: Number(complaints?.n ?? 0),
  };
}

/** Human lines of an email's statistics. */
export function emailStatsLines(s: EmailStats): string[] {
  return [
    `email ${s.id}${s.subject ? ` "${s.subject}"` : ""} (${s.status}, submitted ${s.submitted_at})`,
    `sent       ${s.email_count}`,
    `delivered  ${s.delivered_count}`,
    `opened     ${s.opened_count}${s.open_rate === null ? "" : ` (${s.open_rate}% of delivered)`}${s.track_opens ? "" : " (opens not tracked)"}`,
    `failed     ${s.failed_count} (failure rows: ${s.failures.permanent} permanent, ${s.failures.temporary} temporary)`,
    `complaints ${s.spam_complaints}`,
  ];
}

/** Members' statistics as the demo prints them (the most engaged first). */
export async function topMembers(
  services: Pick<PipelineServices, "db">,
  limit: number,
): Promise<EmailAnalyticsTables["members"][]> {
  return typed<EmailAnalyticsTables>(services.db)
    .selectFrom("members")
    .selectAll()
    .orderBy("email_opened_count", "desc")
    .orderBy("email")
    .limit(limit)
    .execute();
}
