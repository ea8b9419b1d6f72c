import { defineSettings, type EnvOverride } from "tidemark";
import { z } from "zod";

/** The real API; any other base URL (the fake, a proxy) is "not Google" for the key rule. */
export const GOOGLE_BOOKS_DEFAULT_URL = "https://www.googleapis.com";
/** Google's default daily quota per project. */
export const DEFAULT_DAILY_REQUEST_LIMIT = 1000;

const smtpSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: z.boolean().optional(),
  user: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
});

/** `pipelines.books` in tidemark.yaml. */
export const booksSettingsSchema = z.strictObject({
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Requests per API key per Pacific-time day, counted in the database. */
  daily_request_limit: z.number().int().min(1).default(DEFAULT_DAILY_REQUEST_LIMIT),
  requests_per_second: z.number().positive().default(5),
  retry_max_attempts: z.number().int().min(1).max(10).default(4),
  request_timeout_ms: z.number().int().min(100).default(30_000),
  smtp: smtpSchema.default({}),
  /**
   * false: ignore TIDEMARK_GOOGLE_BOOKS_URL and TIDEMARK_SMTP_* (the demo sets it so it can
   * never reach a real API or mail server, whatever the shell exports).
   */
  use_env: z.boolean().default(true),
});

/** SMTP connection settings; `password` is never logged or printed. */
export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
}

/** Resolved settings of the books pipeline (tidemark.yaml + environment). */
export interface BooksSettings {
  baseUrl: string;
  /** True when talking to the real Google endpoint (an API key is then mandatory if named). */
  isGoogle: boolean;
  dailyRequestLimit: number;
  requestsPerSecond: number;
  retryMaxAttempts: number;
  requestTimeoutMs: number;
  /** Undefined when no SMTP host is configured anywhere. */
  smtp: SmtpSettings | undefined;
}

/** Environment variables that override `pipelines.books` keys, field by field. */
const BOOKS_ENV: readonly EnvOverride[] = [
  { name: "TIDEMARK_GOOGLE_BOOKS_URL", path: ["base_url"], kind: "http-url" },
  {
    name: "TIDEMARK_GOOGLE_BOOKS_REQUESTS_PER_SECOND",
    path: ["requests_per_second"],
    kind: "integer",
  },
  { name: "TIDEMARK_SMTP_HOST", path: ["smtp", "host"], kind: "string" },
  { name: "TIDEMARK_SMTP_PORT", path: ["smtp", "port"], kind: "port" },
  { name: "TIDEMARK_SMTP_SECURE", path: ["smtp", "secure"], kind: "boolean" },
  { name: "TIDEMARK_SMTP_USER", path: ["smtp", "user"], kind: "string" },
  { name: "TIDEMARK_SMTP_PASSWORD", path: ["smtp", "password"], kind: "string" },
];

/** Parsed `pipelines.books` → what the job uses. */
function resolve(s: z.output<typeof booksSettingsSchema>): BooksSettings {
  const baseUrl = (s.base_url ?? GOOGLE_BOOKS_DEFAULT_URL).replace(/\/+$/, "");
  const secure = s.smtp.secure ?? false;
  const smtp: SmtpSettings | undefined =
    s.smtp.host === undefined
      ? undefined
      : {
          host: s.smtp.host,
          port: s.smtp.port ?? (secure ? 465 : 587),
          secure,
          user: s.smtp.user,
          password: s.smtp.password,
        };
  return {
    baseUrl,
    isGoogle: new URL(baseUrl).host === new URL(GOOGLE_BOOKS_DEFAULT_URL).host,
    dailyRequestLimit: s.daily_request_limit,
    requestsPerSecond: s.requests_per_second,
    retryMaxAttempts: s.retry_max_attempts,
    requestTimeoutMs: s.request_timeout_ms,
    smtp,
  };
}

/**
 * `pipelines.books` in tidemark.yaml, overridden field by field by `TIDEMARK_GOOGLE_BOOKS_URL`
 * and `TIDEMARK_SMTP_{HOST,PORT,SECURE,USER,PASSWORD}` (environment over file, as every
 * TIDEMARK_* variable); validated when the configuration loads.
 */
export const booksSettings = defineSettings({
  schema: booksSettingsSchema,
  env: BOOKS_ENV,
  resolve,
});
