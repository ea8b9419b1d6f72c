import { HttpError } from "tidemark/kit";
import type { EmailAnalyticsSettings } from "../../settings.ts";

/**
 * The run's one-line error for a Mailgun failure. A refused key (401) or an unknown domain (404)
 * names the setting to fix, since the bare HTTP line leaves the operator guessing; the key itself
 * never appears. Anything else keeps the HTTP client's line.
 */
export function describeFetchFailure(
  err: unknown,
  settings: Pick<EmailAnalyticsSettings, "useEnv" | "domain" | "baseUrl">,
): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof HttpError)) return `Mailgun fetch failed: ${message}`;
  if (err.status === 401) {
    return `Mailgun refused the API key for domain ${settings.domain} at ${settings.baseUrl} (HTTP 401): check MAILGUN_API_KEY`;
  }
  if (err.status === 404) {
    const where = settings.useEnv
      ? "in tidemark.yaml or MAILGUN_DOMAIN, and the region or base_url (TIDEMARK_MAILGUN_URL)"
      : "in tidemark.yaml and the region or base_url";
    return `Mailgun does not know the domain ${settings.domain} at ${settings.baseUrl} (HTTP 404): check pipelines.email-analytics.domain ${where}`;
  }
  return `Mailgun fetch failed: ${message}`;
}
