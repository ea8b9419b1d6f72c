/**
 * Tables of the books pipeline. `collect_cursor` keeps the seed's name and columns (no schema,
 * so `SELECT * FROM collect_cursor` works as the seed's manual check expects); the others live
 * in the `books` schema (`books_*` tables on SQLite).
 */
export interface BooksTables {
  collect_cursor: CollectCursorRow;
  "books.volume": VolumeRow;
  "books.job_volume": JobVolumeRow;
  "books.mail_history": MailHistoryRow;
  "books.quota_usage": QuotaUsageRow;
}

/** Paging state of one (job, query set): seed §1.1. */
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

/** One Google Books volume, keyed by its volume id. */
export interface VolumeRow {
  volume_id: string;
  title: string;
  subtitle: string | null;
  /** JSON array of names. */
  authors: string;
  publisher: string | null;
  /** As Google gives it: `1894`, `2002-02` or `2022-08-23`. */
  published_date: string | null;
  /** YYYYMMDD as a number, `00` for missing parts (`2002-02` → 20020200); 0 when unknown. */
  published_sort: number;
  description: string | null;
  isbn13: string | null;
  isbn10: string | null;
  page_count: number | null;
  /** JSON array. */
  categories: string;
  average_rating: number | null;
  ratings_count: number | null;
  language: string | null;
  print_type: string | null;
  thumbnail: string | null;
  info_link: string | null;
  canonical_link: string | null;
  /** Content hash of the normalised fields: unchanged volumes are not rewritten. */
  content_hash: string;
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
