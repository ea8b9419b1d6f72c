/**
 * Tables of the email-analytics pipeline: Ghost's own tables and column names (emails,
 * email_batches, email_recipients, email_recipient_failures, members, members_newsletters, jobs,
 * suppressions, email_spam_complaint_events), so a Ghost operator recognises them, plus the
 * pipeline's own email_analytics_pending (aggregation that survives a crash). No schema
 * prefix: `SELECT * FROM email_recipients` works as in Ghost. Timestamps are ISO-8601 UTC text on
 * both dialects; Ghost's booleans are 0/1 integers (as on Ghost's MySQL and SQLite).
 */
export interface EmailAnalyticsTables {
  emails: EmailRow;
  email_batches: EmailBatchRow;
  email_recipients: EmailRecipientRow;
  email_recipient_failures: EmailRecipientFailureRow;
  members: MemberRow;
  members_newsletters: MemberNewsletterRow;
  jobs: GhostJobRow;
  suppressions: SuppressionRow;
  email_spam_complaint_events: EmailSpamComplaintEventRow;
  email_analytics_pending: PendingStatsRow;
}

/** One newsletter send (Ghost `emails`); the counters are filled by aggregation. */
export interface EmailRow {
  /** 24-char id (Ghost's ObjectId hex). */
  id: string;
  post_id: string;
  uuid: string;
  /** pending | submitting | submitted | failed */
  status: string;
  subject: string | null;
  email_count: number;
  delivered_count: number;
  opened_count: number;
  failed_count: number;
  /** 0/1: opens are tracked (members' open rate only counts such emails). */
  track_opens: number;
  track_clicks: number;
  newsletter_id: string | null;
  submitted_at: string;
  created_at: string;
  updated_at: string | null;
}

/** One Mailgun send of a slice of an email's recipients; `provider_id` = Mailgun message id. */
export interface EmailBatchRow {
  id: string;
  email_id: string;
  /** Mailgun's message id without angle brackets. */
  provider_id: string | null;
  /** pending | submitting | submitted | failed */
  status: string;
  created_at: string;
  updated_at: string;
}

/** One member's copy of an email; the event timestamps are set once, never overwritten. */
export interface EmailRecipientRow {
  id: string;
  email_id: string;
  member_id: string;
  batch_id: string;
  processed_at: string | null;
  delivered_at: string | null;
  opened_at: string | null;
  failed_at: string | null;
  member_uuid: string;
  member_email: string;
  member_name: string | null;
}

/** The latest failure of one recipient (permanent rows are never changed). */
export interface EmailRecipientFailureRow {
  id: string;
  email_id: string;
  member_id: string | null;
  email_recipient_id: string;
  code: number;
  enhanced_code: string | null;
  message: string;
  /** temporary | permanent */
  severity: string;
  failed_at: string;
  /** Mailgun's event id. */
  event_id: string | null;
}

/** A member with Ghost's email statistics. */
export interface MemberRow {
  id: string;
  uuid: string;
  email: string;
  /** free | paid | comped */
  status: string;
  name: string | null;
  email_count: number;
  email_opened_count: number;
  /** 0-100, null until the member has at least 5 tracked emails. */
  email_open_rate: number | null;
  /** 0/1: set on a 605/607 bounce or a spam complaint. */
  email_disabled: number;
  last_seen_at: string | null;
  created_at: string;
  updated_at: string | null;
}

/** A member's subscription to a newsletter (an unsubscribe event deletes it). */
export interface MemberNewsletterRow {
  id: string;
  member_id: string;
  newsletter_id: string;
}

/** Ghost's `jobs` table: the fetch phases' rows (`email-analytics-latest-opened`, …). */
export interface GhostJobRow {
  id: string;
  name: string;
  /** started | finished | failed | queued */
  status: string;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string | null;
  /** Free text / JSON (the scheduled backfill keeps its range here). */
  metadata: string | null;
  queue_entry: number | null;
}

/** An address Mailgun must no longer be sent to. */
export interface SuppressionRow {
  id: string;
  email: string;
  email_id: string | null;
  /** spam | bounce */
  reason: string;
  created_at: string;
}

/** One spam complaint per (email, member). */
export interface EmailSpamComplaintEventRow {
  id: string;
  member_id: string;
  email_id: string;
  email_address: string;
  created_at: string;
}

/**
 * Not Ghost's: an email or member whose statistics wait for aggregation, kept in the database so
 * a crash between a batch and its aggregation loses nothing.
 */
export interface PendingStatsRow {
  /** email | member */
  kind: string;
  entity_id: string;
  /** emails: 1 when `opened_count` must be recounted too (an opened fetch touched the email). */
  opened: number;
}
