import { setMaxListeners } from "node:events";
import type { JobContext } from "tidemark";
import { SharedRateLimiter } from "tidemark/kit";
import { readRakutenCredentials } from "../client/credentials.ts";
import { RakutenClient } from "../client/rakuten-client.ts";
import type { RakutenSettings } from "../settings.ts";

/**
 * The run's Rakuten client: credentials from the run's environment, and the application id's
 * rate limit shared through the run's database with every other run and process (or held by
 * this process alone with `rate_limit_scope: process`).
 */
export function rakutenClientFor(
  ctx: JobContext<RakutenSettings>,
  concurrency: number,
): RakutenClient {
  const settings = ctx.settings;
  // The entity ETL fetches the next batch while the current one commits: up to two batches of
  // requests (and their rate-limit waits) listen on the run's signal at once.
  setMaxListeners(Math.max(10, concurrency * 4 + 4), ctx.signal);
  return new RakutenClient({
    settings,
    credentials: readRakutenCredentials(settings, ctx.environ),
    logger: ctx.logger,
    limiter: settings.rateLimitScope === "shared" ? new SharedRateLimiter(ctx.db) : undefined,
    concurrency,
    onRequest: ctx.reportHttpRequest,
  });
}
