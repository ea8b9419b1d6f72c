/** Google's JSON error envelope: `{error:{code, message, errors:[…], status, details?}}`. */
export function googleError(
  code: number,
  message: string,
  reason: string,
  extra: { status?: string; location?: string; domain?: string; details?: unknown[] } = {},
): Response {
  const item: Record<string, string> = { message, domain: extra.domain ?? "global", reason };
  if (extra.location) {
    item.location = extra.location;
    item.locationType = "parameter";
  }
  const body = {
    error: {
      code,
      message,
      errors: [item],
      ...(extra.status ? { status: extra.status } : {}),
      ...(extra.details ? { details: extra.details } : {}),
    },
  };
  return Response.json(body, {
    status: code,
    headers: {
      "content-type": "application/json; charset=UTF-8",
      vary: "Origin, X-Origin, Referer",
    },
  });
}

const PROJECT = "project_number:000000000000";

/** The 429 Google sends once the daily quota is spent (not retryable until Pacific midnight). */
export function dailyQuotaError(limit: number): Response {
  const message = `Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'books.googleapis.com' for consumer '${PROJECT}'.`;
  return googleError(429, message, "rateLimitExceeded", {
    status: "RESOURCE_EXHAUSTED",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "RATE_LIMIT_EXCEEDED",
        domain: "googleapis.com",
        metadata: {
          service: "books.googleapis.com",
          quota_metric: "books.googleapis.com/default",
          quota_limit: "defaultPerDayPerProject",
          quota_limit_value: String(limit),
          consumer: "projects/000000000000",
        },
      },
    ],
  });
}

/** The 429 of the per-minute quota: same reason, but it passes within a minute (retryable). */
export function perMinuteQuotaError(): Response {
  const message = `Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'books.googleapis.com' for consumer '${PROJECT}'.`;
  return googleError(429, message, "rateLimitExceeded", { status: "RESOURCE_EXHAUSTED" });
}

/** A Google-shaped answer for an injected status (500 backendError, 503, 403 …). */
export function injectedError(status: number): Response {
  switch (status) {
    case 400:
      return googleError(400, "Invalid value", "invalid", { status: "INVALID_ARGUMENT" });
    case 403:
      return googleError(
        403,
        "Books API has not been used in project 000000000000 before or it is disabled.",
        "accessNotConfigured",
        { status: "PERMISSION_DENIED", domain: "usageLimits" },
      );
    case 429:
      return dailyQuotaError(1000);
    case 503:
      return googleError(503, "The service is currently unavailable.", "backendError", {
        status: "UNAVAILABLE",
      });
    default:
      return googleError(status, "Backend Error", "backendError", { status: "INTERNAL" });
  }
}
