/**
 * Mailgun Events API shapes and the client contract the fetch cycle uses. Mailgun field names
 * are kept as Mailgun spells them (`user-variables`, `delivery-status`, …).
 */

/** Event types Ghost asks for (`opened` alone, or the other four). */
export type GhostEventType = "delivered" | "opened" | "failed" | "unsubscribed" | "complained";

/** Ghost's latest-opened phase asks for these. */
export const OPENED_EVENTS: readonly GhostEventType[] = ["opened"];
/** Ghost's latest non-opened phase asks for these. */
export const NON_OPENED_EVENTS: readonly GhostEventType[] = [
  "delivered",
  "failed",
  "unsubscribed",
  "complained",
];
/** The missing and scheduled phases ask for every type Ghost handles. */
export const ALL_EVENTS: readonly GhostEventType[] = [
  "delivered",
  "opened",
  "failed",
  "unsubscribed",
  "complained",
];

/** Mailgun's `delivery-status` (failed events carry a code and a message). */
export interface MailgunDeliveryStatus {
  code?: number | string;
  message?: string;
  description?: string;
  "enhanced-code"?: string | number;
  "attempt-no"?: number;
  "session-seconds"?: number;
  "mx-host"?: string;
  tls?: boolean;
  utf8?: boolean;
  "certificate-verified"?: boolean;
  "retry-seconds"?: number;
}

/** One raw event item of `GET /v3/{domain}/events`. */
export interface MailgunEvent {
  id: string;
  /** accepted | rejected | delivered | failed | opened | clicked | unsubscribed | complained | stored */
  event: string;
  /** Float epoch seconds, e.g. 1521472262.908181. */
  timestamp: number;
  "log-level"?: string;
  /** failed only: permanent | temporary. */
  severity?: string;
  reason?: string;
  recipient?: string;
  "recipient-domain"?: string;
  tags?: string[];
  /** Ghost puts `email-id` here. */
  "user-variables"?: Record<string, unknown>;
  message?: { headers?: Record<string, string | undefined>; size?: number };
  "delivery-status"?: MailgunDeliveryStatus;
  campaigns?: unknown[];
  flags?: Record<string, boolean>;
  envelope?: Record<string, string>;
  "client-info"?: Record<string, string>;
  geolocation?: Record<string, string>;
  ip?: string;
}

/** Absolute URLs of the neighbouring pages (Mailgun's `paging`). */
export interface MailgunPaging {
  first?: string;
  last?: string;
  next?: string;
  previous?: string;
}

/** One response body of the Events API. */
export interface MailgunEventsPage {
  items: MailgunEvent[];
  paging: MailgunPaging;
}

/** A failure's details as Ghost keeps them (`error` of a normalized event). */
export interface EventError {
  code: number;
  /** ≤ 2000 characters; may be "" (the failure then reads `Error <code>`). */
  message: string;
  /** ≤ 50 characters, or null. */
  enhancedCode: string | null;
}

/** An event as Ghost's provider hands it to the processor. */
export interface NormalizedEvent {
  id: string;
  type: string;
  severity: string | undefined;
  recipientEmail: string | undefined;
  /** `user-variables['email-id']`. */
  emailId: string | undefined;
  /** `message.headers['message-id']` (= email_batches.provider_id). */
  providerId: string | undefined;
  timestamp: Date;
  error: EventError | null;
}

/** What one fetch asks Mailgun for (Ghost's `fetchLatest`/`fetchMissing` options). */
export interface FetchEventsOptions {
  /** Window start (inclusive); sent as epoch seconds. */
  begin: Date;
  /** Window end; sent as epoch seconds. */
  end: Date;
  /** Event types, sent as `event=a OR b`; empty = no filter. */
  events: readonly string[];
  /**
   * Stop after a page once this many events went out, but only when the page's last event is
   * strictly after `begin` (so many events on one timestamp never stall). Default: no limit.
   */
  maxEvents?: number;
  /**
   * The moment this fetch started: events stamped after it are dropped (Ghost's rule, so a
   * long fetch does not run ahead of Mailgun's eventual consistency). Default: now.
   */
  fetchStartedAt?: Date;
  signal?: AbortSignal;
}

/** One page as the client yields it: its usable events, in Mailgun's (ascending) order. */
export interface EventsPage {
  events: NormalizedEvent[];
  /** 0-based page number of this fetch. */
  index: number;
  /** Items Mailgun returned on the page, before dropping. */
  received: number;
  /** Items dropped because they were stamped after `fetchStartedAt`. */
  droppedNewer: number;
  /** Items dropped because they carry neither a message id nor an email id. */
  droppedNoId: number;
  /**
   * Items skipped because their timestamp lies outside the window asked for (`begin`…`end`):
   * a wrong timestamp, never applied and never a watermark.
   */
  outOfWindow: number;
  /** HTTP attempts this page took (1 = no retry). */
  attempts: number;
  /**
   * The fetch stops after this page because it has its `maxEvents`, not because the window
   * ran out: more events may follow.
   */
  stoppedAtBudget: boolean;
}

/** The Events API as the fetch cycle sees it. */
export interface MailgunEventsClient {
  /**
   * Pages of one fetch: the first request carries `begin`, `end`, `event`, `tags`, `limit=300`
   * and `ascending=yes`; then `paging.next` is followed until a page comes back empty (or
   * `maxEvents` says stop). HTTP errors
   * that outlived the retries, and pages not of Mailgun's shape (a field of the wrong type, a
   * timestamp that is not positive), are thrown (the engine's HttpError family).
   */
  fetchEvents(options: FetchEventsOptions): AsyncGenerator<EventsPage, void, undefined>;
}
