import type { MailgunDeliveryStatus } from "../client/types.ts";
import type { FailureKind } from "./event-store.ts";

/** One event to add to the fake (tests, the demo, the campaign generator). */
export interface FakeEventInput {
  /** Any Mailgun type: delivered, opened, failed, unsubscribed, complained, clicked, accepted, … */
  event: string;
  /** When it happened: a Date or epoch seconds (fractional allowed). */
  timestamp: Date | number;
  recipient: string;
  /** `user-variables['email-id']`; omitted when undefined or null. */
  emailId?: string | null;
  /** `message.headers['message-id']` (the batch's provider id); omitted when undefined or null. */
  messageId?: string | null;
  /** failed: which realistic failure (default `bounce`, or `mailbox-full` for temporary). */
  failure?: FailureKind;
  /** failed: overrides the failure kind's severity. */
  severity?: "permanent" | "temporary";
  /** failed: overrides the failure kind's `delivery-status` (null = none at all). */
  deliveryStatus?: MailgunDeliveryStatus | null;
  /** Default `['bulk-email']` plus the fake's extra tag. */
  tags?: string[];
  /** Explicit Mailgun event id (default: generated, stable). */
  id?: string;
  /**
   * Mailgun's eventual consistency: the event shows up in the API this long after it is added
   * (and never before its own timestamp). Default 0.
   */
  delayMs?: number;
  /** Exact moment it shows up (overrides delayMs). */
  visibleAt?: Date;
  /** opened/clicked/delivered: which client, place or MX host it shows (any integer). */
  variant?: number;
  /**
   * Fields written over the item as the API sends it, whatever their type: a broken or hostile
   * answer (`{ recipient: 12345 }`, `{ timestamp: 1e12 }`). The event keeps its place in the
   * store by `timestamp`, so a wrong timestamp shows up inside the window that holds it.
   */
  raw?: Record<string, unknown>;
}

/** Status knobs in Mailgun's own words. */
export type MailgunFault = 400 | 401 | 429 | 500 | 502 | 503 | 504;

/** Rates of the campaign generator, each a probability per recipient (0-1). */
export interface CampaignRates {
  /** Permanent bounce (550 5.1.1) instead of delivery. */
  bounce: number;
  /** Suppressed: previously bounced (605). */
  suppressedBounce: number;
  /** Suppressed: previously complained (607). */
  suppressedComplaint: number;
  /** A temporary failure (then delivered on retry). */
  temporaryFailure: number;
  /** Delivered recipients that open at least once (only emails with tracked opens). */
  opened: number;
  /** Delivered recipients that click. */
  clicked: number;
  unsubscribed: number;
  complained: number;
  /** Events with neither a message id nor an email id (Ghost ignores them). */
  noIds: number;
}

/** One email of a campaign with its recipients. */
export interface CampaignEmail {
  id: string;
  /** When the batches went to Mailgun. */
  sentAt: Date;
  /** Opens are only generated when true (default true). */
  trackOpens?: boolean;
  recipients: readonly CampaignRecipient[];
}

/** One recipient of a campaign email. */
export interface CampaignRecipient {
  email: string;
  /** The batch's Mailgun message id (`email_batches.provider_id`). */
  providerId?: string | null;
}

/** Options of the campaign generator. */
export interface CampaignOptions {
  emails: readonly CampaignEmail[];
  /** PRNG seed (default 1): the same seed gives the same events. */
  seed?: number;
  rates?: Partial<CampaignRates>;
  /** Opens and clicks spread over this many hours after delivery (default 48). */
  engagementHours?: number;
  /**
   * Repeat opens and clicks are added until the campaign has about this many events
   * (default: none beyond the first open and click).
   */
  targetEvents?: number;
  /** Share of clicks among the repeat events added for `targetEvents` (default 0.1). */
  clickShare?: number;
  /** Fraction of events that reach the API late (default 0.02). */
  lateFraction?: number;
  /** How late those are, in ms (default 2-20 minutes). */
  lateDelayMs?: readonly [number, number];
  /** Timestamps rounded to this many seconds (default 0.000001; 1 gives many collisions). */
  timestampResolution?: number;
  /** Put `email-id` into user-variables (default true, as Ghost does). */
  includeEmailId?: boolean;
}

/** What one email of a generated campaign should end up as once every event is applied. */
export interface CampaignEmailExpectation {
  emailId: string;
  /** Recipients with a delivered event. */
  delivered: number;
  /** Recipients with at least one open. */
  opened: number;
  /** Recipients with a permanent failure. */
  failed: number;
}

/** What the generator added. */
export interface CampaignSummary {
  events: number;
  byType: Record<string, number>;
  /** Epoch seconds of the first and last event. */
  first: number;
  last: number;
  expectations: CampaignEmailExpectation[];
}
