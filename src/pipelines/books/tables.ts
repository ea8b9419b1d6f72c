import type { NormalizedBook } from "./client/normalize-volume.ts";

/**
 * Tables of the books pipeline. `collect_cursor` keeps its documented name and columns (no schema,
 * so `SELECT * FROM collect_cursor` works as docs/ops/collect.md shows); the others live
 * in the `books` schema (`books_*` tables on SQLite).
 */
export interface BooksTables {
  collect_cursor: CollectCursorRow;
  "books.volume": VolumeRow;
  "books.job_volume": JobVolumeRow;
  "books.mail_history": MailHistoryRow;
  "books.quota_usage": QuotaUsageRow;
}

/** Paging state of one (job, query set). */
export interface CollectCursorRow {
  job_name: string;
  /** Full 64-char SHA-256 of the normalised query set. */
  query_set_hash: string;
  /** Where the next run starts. */
  start_index: number;
  /** 0/1: the query set is used up; Collect is skipped until a reset. */
  is_exhausted: number;
  /** ISO-8601 UTC, written on every insert and update. */
  last_updated_at: string;
}

/**
 * One Google Books volume, keyed by its volume id: the normalised fields, with the lists stored
 * as JSON text (one shape on both dialects).
 */
export interface VolumeRow extends Omit<NormalizedBook, "authors" | "categories"> {
  /** JSON array of names. */
  authors: string;
  /** JSON array. */
  categories: string;
  first_seen_at: string;
  updated_at: string;
}

/** Which job found which volume (the pool a job's digests are selected from). */
export interface JobVolumeRow {
  job_name: string;
  volume_id: string;
  /** The (normalised) query that found it first. */
  query: string;
  first_seen_at: string;
  first_run_id: string;
  /** Position in the run's collected order: a collation-free tiebreaker for Select. */
  collect_rank: number;
}

/** A volume mailed to a job's recipients (never mailed twice unless `mail reset`). */
export interface MailHistoryRow {
  job_name: string;
  volume_id: string;
  run_id: string;
  message_id: string | null;
  sent_at: string;
}

/** Requests made with one API key on one Pacific-time day. */
export interface QuotaUsageRow {
  /** SHA-256 of the key (or `anonymous`); never the key. */
  key_hash: string;
  /** `YYYY-MM-DD` in America/Los_Angeles, the day Google's quota counts. */
  day: string;
  requests: number;
  updated_at: string;
}
