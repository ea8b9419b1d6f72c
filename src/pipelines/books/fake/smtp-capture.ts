import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { type ParsedMail, parseMail } from "./mime-lite.ts";

/** One message the capture server received. */
export interface CapturedMail extends ParsedMail {
  from: string | undefined;
  to: string[];
  /** The user that authenticated, if any (the password is checked, never kept). */
  user: string | undefined;
  raw: string;
}

/** A local SMTP server that keeps what it receives (demo and tests; no TLS). */
export interface SmtpCapture {
  readonly host: string;
  readonly port: number;
  readonly messages: CapturedMail[];
  close(): Promise<void>;
}

/**
 * Starts an SMTP server on 127.0.0.1 that accepts every message. With `auth`, only that user
 * and password log in. STARTTLS is off so nodemailer talks plain SMTP to it.
 */
export async function startSmtpCapture(
  options: {
    auth?: { user: string; password: string };
    /** Called with each message as it arrives (the standalone fake prints it). */
    onMail?: (mail: CapturedMail) => void;
    /** Default 0: a free port. */
    port?: number;
  } = {},
): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["STARTTLS"],
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      const ok =
        options.auth !== undefined &&
        auth.username === options.auth.user &&
        auth.password === options.auth.password;
      if (ok) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const mailFrom = session.envelope.mailFrom;
        const mail: CapturedMail = {
          ...parseMail(raw),
          from: mailFrom ? mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === "string" ? session.user : undefined,
          raw,
        };
        messages.push(mail);
        options.onMail?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
