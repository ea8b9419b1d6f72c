// Google API error reasons (`error.errors[].reason`) that mean a quota is used up.
// `userRateLimitExceeded` is absent on purpose: it is a per-second limit, so retrying works.
const QUOTA_REASONS = new Set([
  "rateLimitExceeded",
  "dailyLimitExceeded",
  "dailyLimitExceededUnreg",
  "quotaExceeded",
]);
const REASON = /"reason"\s*:\s*"([A-Za-z_]+)"/g;
// Google reuses `rateLimitExceeded` for per-minute quotas, which reset soon enough to retry.
const SHORT_WINDOW = /per\s+(minute|second|100\s+seconds)/i;

/** Google's quota detector: 429/403 bodies with a quota reason and no short window. */
export function isGoogleQuotaError(response: ResponseHead, bodyText: string): boolean {
  if (response.status !== 429 && response.status !== 403) return false;
  const reasons = [...bodyText.matchAll(REASON)].map((m) => m[1] ?? "");
  if (!reasons.some((r) => QUOTA_REASONS.has(r))) return false;
  return !SHORT_WINDOW.test(bodyText);
}

import type { ResponseHead } from "tidemark/kit";
