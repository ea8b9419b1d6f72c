/**
 * What `tidemark email-analytics import` accepts per record type: Ghost's column names with
 * Ghost's types and limits, which ones may be left out (Ghost fills counters, `created_at`,
 * uuids and `last_seen_at` itself) and Ghost columns that are accepted but not stored.
 */

/** A column's type as the importer checks it. */
export type ColumnKind =
  | { t: "id" }
  | { t: "string"; max: number }
  | { t: "int"; min: number; max?: number }
  | { t: "bool" }
  | { t: "time" }
  | { t: "enum"; values: readonly string[] };

/** One importable column. */
export interface ImportColumn {
  name: string;
  kind: ColumnKind;
  /** Must be given (and not null). */
  required?: boolean;
  /** May be null. */
  nullable?: boolean;
}

/** The NDJSON `type` of each importable table. */
export const RECORD_TYPES = {
  member: "members",
  newsletter_subscription: "members_newsletters",
  email: "emails",
  email_batch: "email_batches",
  email_recipient: "email_recipients",
} as const;
export type RecordType = keyof typeof RECORD_TYPES;
export type ImportTable = (typeof RECORD_TYPES)[RecordType];

const id: ColumnKind = { t: "id" };
const time: ColumnKind = { t: "time" };
const bool: ColumnKind = { t: "bool" };
const count: ColumnKind = { t: "int", min: 0 };
const str = (max: number): ColumnKind => ({ t: "string", max });
const STATUS = ["pending", "submitting", "submitted", "failed"] as const;

/** Importable columns per table, in insert order of the tables. */
export const IMPORT_COLUMNS: Record<ImportTable, ImportColumn[]> = {
  members: [
    { name: "id", kind: id, required: true },
    { name: "uuid", kind: str(36) },
    { name: "email", kind: str(191), required: true },
    { name: "status", kind: { t: "enum", values: ["free", "paid", "comped"] } },
    { name: "name", kind: str(191), nullable: true },
    { name: "email_count", kind: count },
    { name: "email_opened_count", kind: count },
    { name: "email_open_rate", kind: { t: "int", min: 0, max: 100 }, nullable: true },
    { name: "email_disabled", kind: bool },
    { name: "last_seen_at", kind: time, nullable: true },
    { name: "created_at", kind: time },
    { name: "updated_at", kind: time, nullable: true },
  ],
  members_newsletters: [
    { name: "id", kind: id, required: true },
    { name: "member_id", kind: id, required: true },
    { name: "newsletter_id", kind: id, required: true },
  ],
  emails: [
    { name: "id", kind: id, required: true },
    { name: "post_id", kind: id, required: true },
    { name: "uuid", kind: str(36) },
    { name: "status", kind: { t: "enum", values: STATUS } },
    { name: "subject", kind: str(300), nullable: true },
    { name: "email_count", kind: count },
    { name: "delivered_count", kind: count },
    { name: "opened_count", kind: count },
    { name: "failed_count", kind: count },
    { name: "track_opens", kind: bool },
    { name: "track_clicks", kind: bool },
    { name: "newsletter_id", kind: id, nullable: true },
    { name: "submitted_at", kind: time },
    { name: "created_at", kind: time },
    { name: "updated_at", kind: time, nullable: true },
  ],
  email_batches: [
    { name: "id", kind: id, required: true },
    { name: "email_id", kind: id, required: true },
    { name: "provider_id", kind: str(255), nullable: true },
    { name: "status", kind: { t: "enum", values: STATUS } },
    { name: "created_at", kind: time },
    { name: "updated_at", kind: time },
  ],
  email_recipients: [
    { name: "id", kind: id, required: true },
    { name: "email_id", kind: id, required: true },
    { name: "member_id", kind: id, required: true },
    { name: "batch_id", kind: id, required: true },
    { name: "processed_at", kind: time, nullable: true },
    { name: "delivered_at", kind: time, nullable: true },
    { name: "opened_at", kind: time, nullable: true },
    { name: "failed_at", kind: time, nullable: true },
    { name: "member_uuid", kind: str(36) },
    { name: "member_email", kind: str(191) },
    { name: "member_name", kind: str(191), nullable: true },
  ],
};

/** Ghost columns of these tables that Tidemark does not keep: accepted and ignored (exports). */
export const IGNORED_GHOST_COLUMNS: Record<ImportTable, readonly string[]> = {
  members: [
    "transient_id",
    "expertise",
    "note",
    "geolocation",
    "enable_comment_notifications",
    "last_commented_at",
    "commenting",
  ],
  members_newsletters: [],
  emails: [
    "recipient_filter",
    "error",
    "error_data",
    "csd_email_count",
    "from",
    "reply_to",
    "html",
    "plaintext",
    "source",
    "source_type",
    "feedback_enabled",
    "created_by",
    "updated_by",
  ],
  email_batches: [
    "fallback_sending_domain",
    "member_segment",
    "error_status_code",
    "error_message",
    "error_data",
  ],
  email_recipients: [],
};

/** The table a `--table` value or an NDJSON `type` names (either spelling), or undefined. */
export function tableNamed(name: string): ImportTable | undefined {
  if (name in RECORD_TYPES) return RECORD_TYPES[name as RecordType];
  return (Object.values(RECORD_TYPES) as string[]).includes(name)
    ? (name as ImportTable)
    : undefined;
}
