import { defineSettings, type EnvOverride } from "tidemark";
import { z } from "zod";

/** Mercari's JSON API (the web site's own backend). */
export const MERCARI_DEFAULT_URL = "https://api.mercari.jp";
/** The web site, for links shown to users (item pages, search pages). */
export const MERCARI_WEB_URL = "https://jp.mercari.com";

/** `pipelines.mercari` in tidemark.yaml. */
export const mercariSettingsSchema = z.strictObject({
  base_url: z
    .url({ protocol: /^https?$/ })
    // fetch refuses such a URL on every request, so a crawl would only fail after its retries;
    // `secret` keeps the password out of the error.
    .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), {
      message: "must not contain a user name or password",
      params: { secret: true },
    })
    .optional(),
  /**
   * Requests per second to Mercari, shared by every process on the database (the engine's
   * shared rate limit); 0 turns the limit off (benchmarks against the fake only).
   */
  requests_per_second: z.number().min(0).default(1),
  /** Search pages read on a product's first crawl (every page up to this cap). */
  first_run_max_pages: z.number().int().min(1).default(100),
  /** Search pages read, newest first, on every later crawl. */
  pages_per_run: z.number().int().min(1).default(3),
  /** Items per search page (Mercari's web client asks for 120). */
  page_size: z.number().int().min(1).max(200).default(120),
  request_timeout_ms: z.number().int().min(100).default(30_000),
  /** Attempts per request, the first included (403/429/5xx and network errors are retried). */
  retry_max_attempts: z.number().int().min(1).max(10).default(4),
  /** false: ignore TIDEMARK_MERCARI_URL (the demo sets it so it never reaches the real API). */
  use_env: z.boolean().default(true),
});

/**
 * Resolved settings of the mercari pipeline (tidemark.yaml + environment): what the registry
 * hands its jobs, routes, commands and queue handlers as `settings`.
 */
export interface MercariSettings {
  /** API base URL without a trailing slash. */
  baseUrl: string;
  /** Requests per second across all processes; 0 = unlimited. */
  requestsPerSecond: number;
  firstRunMaxPages: number;
  pagesPerRun: number;
  pageSize: number;
  requestTimeoutMs: number;
  retryMaxAttempts: number;
}

/** Environment variables that override `pipelines.mercari` keys. */
const MERCARI_ENV: readonly EnvOverride[] = [
  { name: "TIDEMARK_MERCARI_URL", path: ["base_url"], kind: "http-url" },
  { name: "TIDEMARK_MERCARI_REQUESTS_PER_SECOND", path: ["requests_per_second"], kind: "integer" },
];

function resolve(s: z.output<typeof mercariSettingsSchema>): MercariSettings {
  return {
    baseUrl: (s.base_url ?? MERCARI_DEFAULT_URL).replace(/\/+$/, ""),
    requestsPerSecond: s.requests_per_second,
    firstRunMaxPages: s.first_run_max_pages,
    pagesPerRun: s.pages_per_run,
    pageSize: s.page_size,
    requestTimeoutMs: s.request_timeout_ms,
    retryMaxAttempts: s.retry_max_attempts,
  };
}

/**
 * `pipelines.mercari` in tidemark.yaml, its `base_url` overridden by `TIDEMARK_MERCARI_URL`;
 * validated when the configuration loads.
 */
export const mercariSettings = defineSettings({
  schema: mercariSettingsSchema,
  env: MERCARI_ENV,
  resolve,
});

/**
 * A `pipelines.mercari` section validated and resolved as written, without the environment's
 * overrides (the demo's, pointed at its fake).
 */
export function mercariSettingsOf(section: Record<string, unknown>): MercariSettings {
  return resolve(mercariSettingsSchema.parse(section));
}
