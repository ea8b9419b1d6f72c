import nodemailer from "nodemailer";
import type { BooksRunParams } from "../../params.ts";
import type { SmtpSettings } from "../../settings.ts";
import type { Digest } from "./digest.ts";

/** What the SMTP server accepted. */
export interface SentMail {
  messageId: string | null;
  accepted: string[];
}

function addresses(list: ReadonlyArray<string | { address: string }>): string[] {
  return list.map((a) => (typeof a === "string" ? a : a.address));
}

/**
 * Sends the digest (text + HTML) over SMTP. Throws when the server refuses every recipient;
 * the password goes to nodemailer only (its own logging stays off).
 */
export async function sendDigest(
  smtp: SmtpSettings,
  mail: BooksRunParams["mail"],
  digest: Digest,
): Promise<SentMail> {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? "" } : undefined,
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({
      from: mail.from,
      to: Array.isArray(mail.to) ? mail.to.join(", ") : mail.to,
      subject: digest.subject,
      text: digest.text,
      html: digest.html,
    });
    const accepted = addresses(info.accepted);
    if (accepted.length === 0) {
      throw new Error(
        `SMTP server accepted no recipient (rejected: ${addresses(info.rejected).join(", ")})`,
      );
    }
    return { messageId: info.messageId ?? null, accepted };
  } finally {
    transport.close();
  }
}
