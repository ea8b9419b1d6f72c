import type { MailgunDeliveryStatus, MailgunEvent } from "../client/types.ts";
import { FAILURE_KINDS, type FailureKind, type StoredEvent } from "./event-store.ts";

/** How each failure kind looks in Mailgun's answers. */
interface FailureTemplate {
  severity: "permanent" | "temporary";
  reason: string;
  logLevel: string;
  status: MailgunDeliveryStatus;
}

/** Realistic `delivery-status` blocks, as Mailgun sends them for each kind of failure. */
export const FAILURES: Record<FailureKind, FailureTemplate> = {
  bounce: {
    severity: "permanent",
    reason: "bounce",
    logLevel: "error",
    status: {
      code: 550,
      "enhanced-code": "5.1.1",
      "attempt-no": 1,
      message:
        "5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces.",
      description: "",
      "session-seconds": 0.51,
      "mx-host": "mx.example.net",
      tls: true,
      utf8: true,
      "certificate-verified": true,
    },
  },
  "mailbox-full": {
    severity: "temporary",
    reason: "generic",
    logLevel: "warn",
    status: {
      code: 452,
      "enhanced-code": "4.2.2",
      "attempt-no": 1,
      message: "4.2.2 The email account that you tried to reach is over quota.",
      description: "",
      "retry-seconds": 600,
      "session-seconds": 0.33,
      "mx-host": "mx.example.net",
    },
  },
  "suppress-bounce": {
    severity: "permanent",
    reason: "suppress-bounce",
    logLevel: "error",
    status: {
      code: 605,
      "attempt-no": 1,
      message: "",
      description: "Not delivering to previously bounced address",
      "session-seconds": 0,
    },
  },
  "suppress-complaint": {
    severity: "permanent",
    reason: "suppress-complaint",
    logLevel: "error",
    status: {
      code: 607,
      "attempt-no": 1,
      message: "",
      description: "Not delivering to a user who marked your messages as spam",
      "session-seconds": 0,
    },
  },
  "suppress-unsubscribe": {
    severity: "permanent",
    reason: "suppress-unsubscribe",
    logLevel: "error",
    status: {
      code: 606,
      "attempt-no": 1,
      message: "",
      description: "Not delivering to unsubscribed address",
      "session-seconds": 0,
    },
  },
  greylisted: {
    severity: "temporary",
    reason: "generic",
    logLevel: "warn",
    status: {
      code: 451,
      "enhanced-code": "4.7.1",
      "attempt-no": 1,
      message: "4.7.1 Greylisted, please try again later",
      description: "",
      "retry-seconds": 900,
      "session-seconds": 1.2,
    },
  },
  "generic-temporary": {
    severity: "temporary",
    reason: "generic",
    logLevel: "warn",
    // Empty texts: Ghost then records the failure as "Error 421".
    status: { code: 421, "attempt-no": 2, message: "", description: "", "retry-seconds": 1800 },
  },
  "no-message": {
    severity: "permanent",
    reason: "generic",
    logLevel: "error",
    status: { code: 550, "attempt-no": 1, "session-seconds": 0.2 },
  },
};

const CLIENTS = [
  {
    "client-type": "mobile browser",
    "client-os": "iOS",
    "device-type": "mobile",
    "client-name": "Mobile Safari",
    "user-agent":
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  },
  {
    "client-type": "email client",
    "client-os": "Windows",
    "device-type": "desktop",
    "client-name": "Outlook 2019",
    "user-agent": "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.10827; Pro)",
  },
  {
    "client-type": "browser",
    "client-os": "Linux",
    "device-type": "desktop",
    "client-name": "Chrome",
    "user-agent":
      "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
  },
];
const PLACES = [
  { country: "US", region: "CA", city: "San Francisco" },
  { country: "DE", region: "BE", city: "Berlin" },
  { country: "JP", region: "13", city: "Tokyo" },
];
const MX_HOSTS = ["gmail-smtp-in.l.google.com", "mx1.hotmail.com", "mx.example.net"];

/** The failure kind of a stored failed event. */
export function failureKindOf(e: Pick<StoredEvent, "variant">): FailureKind {
  return FAILURE_KINDS[e.variant] ?? "bounce";
}

/** `severity` of a stored event as the API shows it (failed events only). */
export function severityOf(e: StoredEvent): string | undefined {
  if (e.overrides?.severity !== undefined) return e.overrides.severity;
  return e.type === "failed" ? FAILURES[failureKindOf(e)].severity : undefined;
}

/** Mailgun's event id: 22 URL-safe characters, stable per event. */
export function eventId(prefix: string, seq: number): string {
  return `${prefix}${seq.toString(36).padStart(10, "0")}`.slice(0, 22);
}

/** One stored event as Mailgun's Events API returns it. */
export function toMailgunItem(e: StoredEvent, domain: string, idPrefix: string): MailgunEvent {
  const at = e.recipient.lastIndexOf("@");
  const item: MailgunEvent = {
    id: e.overrides?.id ?? eventId(idPrefix, e.seq),
    event: e.type,
    timestamp: e.timestamp,
    "log-level": "info",
    recipient: e.recipient,
    "recipient-domain": at >= 0 ? e.recipient.slice(at + 1) : "",
    tags: [...e.tags],
    campaigns: [],
    "user-variables": e.emailId === undefined ? {} : { "email-id": e.emailId },
    message: { headers: e.messageId === undefined ? {} : { "message-id": e.messageId } },
  };
  const headers = item.message?.headers as Record<string, string>;
  switch (e.type) {
    case "delivered":
    case "accepted":
    case "stored":
    case "rejected":
      addSending(item, headers, e, domain);
      break;
    case "failed":
      addFailure(item, headers, e, domain);
      break;
    case "opened":
    case "clicked":
    case "unsubscribed":
    case "complained":
      addEngagement(item, e);
      break;
  }
  if (e.overrides?.raw) Object.assign(item, e.overrides.raw);
  return item;
}

function addSending(
  item: MailgunEvent,
  headers: Record<string, string>,
  e: StoredEvent,
  domain: string,
): void {
  headers.to = e.recipient;
  headers.from = `Newsletter <noreply@${domain}>`;
  headers.subject = "This week's newsletter";
  Object.assign(item, {
    envelope: { transport: "smtp", sender: `bounce@${domain}`, targets: e.recipient },
    flags: { "is-routed": false, "is-authenticated": true, "is-test-mode": false },
  });
  if (item.message) item.message.size = 24_512;
  if (e.type === "delivered") {
    item["delivery-status"] = {
      tls: true,
      "mx-host": MX_HOSTS[e.variant % MX_HOSTS.length],
      code: 250,
      description: "",
      "session-seconds": 0.43,
      utf8: true,
      "attempt-no": 1,
      message: "OK",
      "certificate-verified": true,
    };
  }
  if (e.type === "rejected") {
    item["log-level"] = "warn";
    Object.assign(item, { reject: { reason: "Sandbox subdomains are for test purposes only" } });
  }
  if (e.type === "stored") Object.assign(item, { storage: { key: `message-${e.variant}` } });
}

function addFailure(
  item: MailgunEvent,
  headers: Record<string, string>,
  e: StoredEvent,
  domain: string,
): void {
  const template = FAILURES[failureKindOf(e)];
  headers.to = e.recipient;
  headers.from = `Newsletter <noreply@${domain}>`;
  item["log-level"] = template.logLevel;
  item.severity = e.overrides?.severity ?? template.severity;
  item.reason = e.overrides?.reason ?? template.reason;
  const status = e.overrides?.deliveryStatus;
  if (status !== null) item["delivery-status"] = { ...(status ?? template.status) };
}

function addEngagement(item: MailgunEvent, e: StoredEvent): void {
  if (e.type === "complained") item["log-level"] = "warn";
  item.ip = `203.0.113.${(e.variant % 250) + 1}`;
  item.geolocation = PLACES[e.variant % PLACES.length];
  item["client-info"] = CLIENTS[e.variant % CLIENTS.length];
  if (e.type === "clicked") Object.assign(item, { url: "https://example.com/p/welcome/" });
}
