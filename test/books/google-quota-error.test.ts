import { describe, expect, it } from "vitest";
import { isGoogleQuotaError } from "../../src/pipelines/books/client/google-quota-error.ts";

const head = (status: number) => ({ status, headers: new Headers() });
const googleError = (reason: string, message = "Quota exceeded") =>
  JSON.stringify({ error: { code: 429, message, errors: [{ reason, domain: "usageLimits" }] } });

describe("isGoogleQuotaError", () => {
  it("recognises daily-quota reasons on 429 and 403", () => {
    expect(isGoogleQuotaError(head(429), googleError("rateLimitExceeded"))).toBe(true);
    expect(isGoogleQuotaError(head(403), googleError("dailyLimitExceeded"))).toBe(true);
    expect(isGoogleQuotaError(head(403), googleError("quotaExceeded"))).toBe(true);
  });
  it("treats per-second/per-minute limits and other statuses as retryable", () => {
    expect(isGoogleQuotaError(head(403), googleError("userRateLimitExceeded"))).toBe(false);
    const perMinute = "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'";
    expect(isGoogleQuotaError(head(429), googleError("rateLimitExceeded", perMinute))).toBe(false);
    expect(isGoogleQuotaError(head(500), googleError("quotaExceeded"))).toBe(false);
    expect(isGoogleQuotaError(head(429), "Too Many Requests")).toBe(false);
    expect(isGoogleQuotaError(head(403), googleError("forbidden"))).toBe(false);
  });
});
