import {
  ConfigError,
  defineSettings,
  type EnvOverride,
  type PipelineServices,
  rememberSecret,
} from "tidemark";
import { z } from "zod";

/** Mailgun's API hosts per region (Ghost's `bulkEmail.mailgun.baseUrl` without `/v3`). */
export const MAILGUN_REGION_URLS = {
  us: "https://api.mailgun.net",
  eu: "https://api.eu.mailgun.net",
} as const;

/** The variable holding the Mailgun API key (read when a run starts; never stored or printed). */
export const MAILGUN_API_KEY_ENV = "MAILGUN_API_KEY";

/** `pipelines.email-analytics` in tidemark.yaml. */
export const emailAnalyticsSettingsSchema = z.strictObject({
  /** Mailgun API root, with or without `/v3` (default: the region's host). */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** `us` (api.mailgun.net) or `eu` (api.eu.mailgun.net); ignored when base_url is set. */
  region: z.enum(["us", "eu"]).default("us"),
  /** The sending domain whose events are read (`/v3/<domain>/events`). */
  domain: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/, "expected a domain name such as mg.example.com")
    .optional(),
  /** A tag every bulk send carries besides `bulk-email` (Ghost's `bulkEmail.mailgun.tag`). */
  tag: z.string().min(1).optional(),
  /** A warning is logged when the opened events' watermark is older than this. */
  opened_lag_warning_minutes: z.number().int().min(1).default(30),
  /** Attempts per Mailgun request, the first included (429, 5xx and network errors retry). */
  retry_max_attempts: z.number().int().min(1).max(10).default(5),
  request_timeout_ms: z.number().int().min(100).default(30_000),
  /**
   * false: ignore TIDEMARK_MAILGUN_URL and MAILGUN_DOMAIN (the demo sets it so it can never
   * reach the real Mailgun, whatever the shell exports).
   */
  use_env: z.boolean().default(true),
});

/** Resolved settings of the email-analytics pipeline (tidemark.yaml + environment). */
export interface EmailAnalyticsSettings {
  /** API root without a trailing slash or `/v3`, e.g. `https://api.eu.mailgun.net`. */
  baseUrl: string;
  region: "us" | "eu";
  /** Undefined until configured; a run then fails with a ConfigError naming both places. */
  domain: string | undefined;
  /** `['bulk-email']` plus the configured tag: sent as `tags=bulk-email AND <tag>`. */
  tags: string[];
  openedLagWarningMinutes: number;
  retryMaxAttempts: number;
  requestTimeoutMs: number;
  /** false: TIDEMARK_MAILGUN_URL and MAILGUN_DOMAIN are ignored (messages must not suggest them). */
  useEnv: boolean;
}

/** Environment variables that override `pipelines.email-analytics` keys. */
const EMAIL_ANALYTICS_ENV: readonly EnvOverride[] = [
  { name: "TIDEMARK_MAILGUN_URL", path: ["base_url"], kind: "http-url" },
  { name: "MAILGUN_DOMAIN", path: ["domain"], kind: "string" },
];

/** Parsed `pipelines.email-analytics` → what the job uses. */
function resolve(s: z.output<typeof emailAnalyticsSettingsSchema>): EmailAnalyticsSettings {
  const base = (s.base_url ?? MAILGUN_REGION_URLS[s.region]).replace(/\/+$/, "");
  return {
    baseUrl: base.replace(/\/v3$/, ""),
    region: s.region,
    domain: s.domain,
    tags: s.tag === undefined ? ["bulk-email"] : ["bulk-email", s.tag],
    openedLagWarningMinutes: s.opened_lag_warning_minutes,
    retryMaxAttempts: s.retry_max_attempts,
    requestTimeoutMs: s.request_timeout_ms,
    useEnv: s.use_env,
  };
}

/**
 * `pipelines.email-analytics` in tidemark.yaml, overridden by `TIDEMARK_MAILGUN_URL` (base_url)
 * and `MAILGUN_DOMAIN` (domain); validated when the configuration loads.
 */
export const emailAnalyticsSettings = defineSettings({
  schema: emailAnalyticsSettingsSchema,
  env: EMAIL_ANALYTICS_ENV,
  resolve,
});

/**
 * The services a route or the panel is given, their settings typed: the registry validated
 * `pipelines.email-analytics` with `emailAnalyticsSettings` (routes get `PipelineServices<unknown>`).
 */
export function emailAnalyticsServices(
  services: PipelineServices,
): PipelineServices<EmailAnalyticsSettings> {
  return services as PipelineServices<EmailAnalyticsSettings>;
}

/** What the Mailgun client needs to call the API: where, which domain, with which key. */
export interface MailgunCredentials {
  baseUrl: string;
  domain: string;
  apiKey: string;
  tags: string[];
}

/**
 * The domain (settings) and API key (`MAILGUN_API_KEY` in `env`), or a ConfigError (exit 2)
 * naming where to set the missing one. The key itself never appears in a message.
 */
export function mailgunCredentials(
  settings: EmailAnalyticsSettings,
  env: NodeJS.ProcessEnv,
): MailgunCredentials {
  if (settings.domain === undefined) {
    // With use_env: false an exported MAILGUN_DOMAIN is ignored, so it is not offered as a fix.
    const where = settings.useEnv
      ? "in tidemark.yaml or MAILGUN_DOMAIN"
      : "in tidemark.yaml (use_env: false ignores MAILGUN_DOMAIN)";
    throw new ConfigError(
      `Mailgun domain is not configured: set pipelines.email-analytics.domain ${where}`,
    );
  }
  const apiKey = env[MAILGUN_API_KEY_ENV]?.trim();
  if (!apiKey) {
    throw new ConfigError(
      `environment variable ${MAILGUN_API_KEY_ENV} is not set: export the Mailgun API key in it`,
    );
  }
  rememberSecret(apiKey);
  return { baseUrl: settings.baseUrl, domain: settings.domain, apiKey, tags: settings.tags };
}
