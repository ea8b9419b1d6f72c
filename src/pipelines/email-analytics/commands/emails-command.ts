import type { CliServices } from "tidemark";
import { listLimit, typed } from "tidemark/kit";
import { type EmailListed, EmailsRepo } from "../repos/emails-repo.ts";
import type { EmailAnalyticsTables } from "../tables.ts";

/** One email as `email-analytics emails` lists it (its fields stay what the command printed). */
export type ListedEmail = Pick<
  EmailListed,
  "id" | "subject" | "status" | "submitted_at" | "email_count" | "delivered_count" | "opened_count"
>;

/** Stored emails, the most recently submitted first. */
export async function listEmails(services: CliServices, limit: number): Promise<ListedEmail[]> {
  const { db } = await services.services();
  const emails = await new EmailsRepo().newest(typed<EmailAnalyticsTables>(db), limit);
  return emails.map((e) => ({
    id: e.id,
    subject: e.subject,
    status: e.status,
    submitted_at: e.submitted_at,
    email_count: e.email_count,
    delivered_count: e.delivered_count,
    opened_count: e.opened_count,
  }));
}

/** A subject cut to fit a table column. */
function short(text: string | null, max: number): string {
  if (text === null) return "-";
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `tidemark email-analytics emails [--limit n] [--json]`. */
export async function emailsCommand(
  services: CliServices,
  options: Readonly<Record<string, unknown>>,
): Promise<void> {
  const emails = await listEmails(services, listLimit(options.limit, 20));
  if (options.json) {
    services.printJson(emails);
    return;
  }
  if (emails.length === 0) {
    services.print("No email stored yet: import them first (tidemark email-analytics import).");
    return;
  }
  services.printTable(
    ["ID", "SUBMITTED", "SENT", "OPENED", "SUBJECT"],
    emails.map((e) => [
      e.id,
      e.submitted_at.slice(0, 19),
      e.email_count,
      e.opened_count,
      short(e.subject, 24),
    ]),
  );
  services.print(`Its stats: tidemark email-analytics stats ${emails[0]!.id}`);
}
