import { z } from "zod";
import { ConfigError } from "../../engine/errors.ts";
import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import type { Config } from "../../infra/config/load-config.ts";

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

function envText(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

function envPort(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = envText(env, name);
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new ConfigError(`${name}: expected a port number 1-65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = envText(env, name);
  if (raw === undefined) return undefined;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name}: expected true or false, got ${JSON.stringify(raw)}`);
}

function envUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = envText(env, name);
  if (raw === undefined) return undefined;
  if (!/^https?:\/\/[^/\s]+/i.test(raw)) {
    throw new ConfigError(`${name}: expected an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/**
 * Reads `pipelines.books` from the configuration, then lets `TIDEMARK_GOOGLE_BOOKS_URL` and
 * `TIDEMARK_SMTP_{HOST,PORT,SECURE,USER,PASSWORD}` override it field by field (environment over
 * file, as every TIDEMARK_* variable). Errors name `pipelines.books.<key>` or the variable.
 */
export function resolveBooksSettings(
  config: Pick<Config, "file" | "pipelines">,
  env: NodeJS.ProcessEnv,
): BooksSettings {
  const raw = config.pipelines.books ?? {};
  const wrapped = { pipelines: { books: raw } };
  const parsed = z
    .object({ pipelines: z.object({ books: booksSettingsSchema }) })
    .safeParse(wrapped);
  if (!parsed.success) {
    throw new ConfigError(formatZodIssues(config.file ?? "configuration", parsed.error, wrapped));
  }
  const s = parsed.data.pipelines.books;
  if (!s.use_env) env = {};
  const baseUrl = (
    envUrl(env, "TIDEMARK_GOOGLE_BOOKS_URL") ??
    s.base_url ??
    GOOGLE_BOOKS_DEFAULT_URL
  ).replace(/\/+$/, "");
  const host = envText(env, "TIDEMARK_SMTP_HOST") ?? s.smtp.host;
  const secure = envBool(env, "TIDEMARK_SMTP_SECURE") ?? s.smtp.secure ?? false;
  const smtp: SmtpSettings | undefined =
    host === undefined
      ? undefined
      : {
          host,
          port: envPort(env, "TIDEMARK_SMTP_PORT") ?? s.smtp.port ?? (secure ? 465 : 587),
          secure,
          user: envText(env, "TIDEMARK_SMTP_USER") ?? s.smtp.user,
          password: envText(env, "TIDEMARK_SMTP_PASSWORD") ?? s.smtp.password,
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
