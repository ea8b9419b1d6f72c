export type { RateLimitsTable, RateLimitTables } from "./rate-limit-tables.ts";
export { SharedRateLimiter, type SharedRateLimiterOptions } from "./shared-rate-limiter.ts";
export {
  type BucketState,
  checkLimit,
  type TakeResult,
  type TokenBucketLimit,
  takeToken,
} from "./token-bucket.ts";
