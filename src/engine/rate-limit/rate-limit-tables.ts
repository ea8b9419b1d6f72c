/** Row type of `tm_rate_limits`: one token bucket per key (e.g. per API credential). */
export interface RateLimitsTable {
  key: string;
  /** Tokens left as of `updated_at` (fractional: the bucket refills continuously). */
  tokens: number;
  /** ISO-8601 UTC of the bucket's state; only ever moves forward. */
  updated_at: string;
}

/** The tables SharedRateLimiter reads and writes. */
export interface RateLimitTables {
  tm_rate_limits: RateLimitsTable;
}
