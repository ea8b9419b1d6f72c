import type { MercariSettings } from "../../../src/pipelines/mercari/settings.ts";

/** Client settings for tests against a local fake: no rate limit, small pages, quick timeouts. */
export function fakeClientSettings(
  baseUrl: string,
  over: Partial<MercariSettings> = {},
): MercariSettings {
  return {
    baseUrl,
    requestsPerSecond: 0,
    firstRunMaxPages: 100,
    pagesPerRun: 3,
    pageSize: 50,
    requestTimeoutMs: 5000,
    retryMaxAttempts: 3,
    ...over,
  };
}
