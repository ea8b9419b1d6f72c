import type { EventError, MailgunEvent, NormalizedEvent } from "./types.ts";

/**
 * A Mailgun event as Ghost's provider normalizes it, or null when it carries neither a
 * message id nor an email id (Ghost ignores such events). `error` is set when
 * `delivery-status` has a string `message || description`: the message cut at 2000 characters,
 * the enhanced code at 50.
 */
export function normalizeEvent(event: MailgunEvent): NormalizedEvent | null {
  const providerId = stringOrUndefined(event.message?.headers?.["message-id"]);
  const emailId = stringOrUndefined(event["user-variables"]?.["email-id"]);
  if (providerId === undefined && emailId === undefined) return null;
  return {
    id: event.id,
    type: event.event,
    severity: event.severity,
    recipientEmail: event.recipient,
    emailId,
    providerId,
    timestamp: new Date(event.timestamp * 1000),
    error: eventError(event),
  };
}

/** Ghost's `error` of a normalized event (null when there is no textual delivery status). */
function eventError(event: MailgunEvent): EventError | null {
  const status = event["delivery-status"];
  if (status === undefined || status === null) return null;
  // `||` as Ghost writes it: an empty message falls through to the description.
  const text = status.message || status.description;
  if (typeof text !== "string") return null;
  const enhanced = status["enhanced-code"];
  const code = Number(status.code);
  return {
    // A missing code would break Ghost's NOT NULL insert; 0 keeps the failure instead.
    code: Number.isFinite(code) ? code : 0,
    message: text.substring(0, 2000),
    enhancedCode:
      enhanced === undefined || enhanced === null ? null : String(enhanced).substring(0, 50),
  };
}

/** Non-empty strings only; Mailgun sends the fields Ghost reads as strings when present. */
function stringOrUndefined(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}
