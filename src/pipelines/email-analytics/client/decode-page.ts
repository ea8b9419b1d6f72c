import type { MailgunEvent, MailgunEventsPage } from "./types.ts";

/**
 * Checks the shape the client relies on without copying the items: `paging` (with a `next` link
 * after a page of events) and `items[]` whose every field
 * the pipeline reads has Mailgun's documented type (`id`, `event`, `recipient` strings; a
 * positive finite `timestamp`; `severity` a string; `user-variables`, `message.headers` and
 * `delivery-status` objects with ids, codes and texts of their types), and `paging`. Pages come
 * 300 events at a time, a million per benchmark, so a full schema parse would cost more than the
 * rest of the client. Throws a one-line reason naming the first bad field (`items[3].recipient:
 * expected a string, got number`); the caller makes it a failure of the request (see
 * docs/pipelines/email-analytics.md, "What Mailgun answers").
 */
export function decodeEventsPage(json: unknown): MailgunEventsPage {
  if (!isObject(json)) throw new Error("body is not an object");
  const { items, paging } = json as { items?: unknown; paging?: unknown };
  if (!Array.isArray(items)) throw new Error("items: expected an array");
  for (let i = 0; i < items.length; i++) checkItem(items[i], `items[${i}]`);
  if (!isObject(paging)) throw new Error(`paging: expected an object, got ${typeName(paging)}`);
  for (const key of ["next", "previous", "first", "last"]) {
    optional(paging[key], `paging.${key}`, "a string", isString);
  }
  // Without a next link a page of events would end the traversal with the rest unread.
  if (items.length > 0) required(paging.next, "paging.next", "a string", isString);
  return { items: items as MailgunEvent[], paging: paging as MailgunEventsPage["paging"] };
}

/** One event item: every field the pipeline reads, with its documented type. */
function checkItem(value: unknown, at: string): void {
  if (!isObject(value)) throw new Error(`${at}: expected an object, got ${typeName(value)}`);
  const item = value as Record<string, unknown>;
  required(item.id, `${at}.id`, "a string", isString);
  required(item.event, `${at}.event`, "a string", isString);
  const ts = item.timestamp;
  if (typeof ts !== "number" || !Number.isFinite(ts) || ts <= 0) {
    const got = typeof ts === "number" ? String(ts) : typeName(ts);
    throw new Error(`${at}.timestamp: expected positive epoch seconds, got ${got}`);
  }
  required(item.recipient, `${at}.recipient`, "a string", isString);
  optional(item.severity, `${at}.severity`, "a string", isString);
  const vars = optional(item["user-variables"], `${at}.user-variables`, "an object", isObject);
  if (vars) optional(vars["email-id"], `${at}.user-variables.email-id`, "a string", isId);
  const message = optional(item.message, `${at}.message`, "an object", isObject);
  const headers = message
    ? optional(message.headers, `${at}.message.headers`, "an object", isObject)
    : undefined;
  if (headers)
    optional(headers["message-id"], `${at}.message.headers.message-id`, "a string", isId);
  const status = optional(item["delivery-status"], `${at}.delivery-status`, "an object", isObject);
  if (status) {
    const s = `${at}.delivery-status`;
    optional(status.code, `${s}.code`, "a number", isId);
    optional(status.message, `${s}.message`, "a string", isString);
    optional(status.description, `${s}.description`, "a string", isString);
    optional(status["enhanced-code"], `${s}.enhanced-code`, "a string", isId);
  }
}

/** Throws unless `value` passes `test`. */
function required(value: unknown, at: string, want: string, test: (v: unknown) => boolean): void {
  if (!test(value)) throw new Error(`${at}: expected ${want}, got ${typeName(value)}`);
}

/** Absent (undefined or null) is fine; anything else must pass `test`. Returns the object form. */
function optional(
  value: unknown,
  at: string,
  want: string,
  test: (v: unknown) => boolean,
): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  required(value, at, want, test);
  return value as Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isString(v: unknown): boolean {
  return typeof v === "string";
}

/**
 * Ids and codes: a string, or a finite number (Mailgun decodes user variables and codes that
 * look like numbers into numbers).
 */
function isId(v: unknown): boolean {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/** `null`, `array` or the `typeof` name, for error lines (never the value: it may be an address). */
function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}
