import { describeError, type JobContext } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import type { BooksRunParams } from "../../params.ts";
import type { MailHistoryRepo } from "../../repos/mail-history-repo.ts";
import type { BooksSettings, SmtpSettings } from "../../settings.ts";
import type { Digest } from "./digest.ts";
import { type SentMail, sendDigest } from "./send-digest.ts";

/**
 * Mails the digest and records what was sent. An SMTP failure is returned as the run's failure
 * message, naming the server, so the run still records what Collect and Upsert did.
 */
export async function mailDigest(
  ctx: JobContext<BooksSettings>,
  mailHistory: MailHistoryRepo,
  mail: { smtp: SmtpSettings; params: BooksRunParams["mail"]; digest: Digest },
  books: ReadonlyArray<{ volumeId: string }>,
  summary: Record<string, unknown>,
): Promise<string | undefined> {
  const { smtp, digest } = mail;
  let sent: SentMail;
  try {
    sent = await sendDigest(smtp, mail.params, digest);
  } catch (err) {
    const why = describeError(err);
    summary.mail = `not sent: ${why}`;
    // The books stay unmailed in the history, so the next run sends them again.
    return `mail not sent: SMTP server ${smtp.host}:${smtp.port}: ${why}`;
  }
  await mailHistory.record(
    ctx.jobName,
    books.map((b) => b.volumeId),
    { runId: ctx.runId, messageId: sent.messageId, sentAt: isoTimestamp(ctx.clock.now()) },
  );
  ctx.logger.info(
    { to: sent.accepted, subject: digest.subject, books: books.length, messageId: sent.messageId },
    "digest mailed",
  );
  summary.mail = `sent to ${sent.accepted.join(", ")}`;
  return undefined;
}
