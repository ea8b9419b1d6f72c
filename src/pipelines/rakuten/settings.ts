import { defineSettings, type EnvOverride } from "tidemark";
import { z } from "zod";

/** The Rakuten Web Service host answering since 2026-05-14 (the old host is retired). */
export const RAKUTEN_DEFAULT_URL = "https://openapi.rakuten.co.jp";
/** Rakuten's documented limit: one request per second per application id. */
export const RAKUTEN_DEFAULT_RPS = 1;
/** Default name of the local lexical embedding (hashed character n-grams, not a semantic model). */
export const LOCAL_EMBEDDING_MODEL = "local-char-ngram-v1";
/** Default model of the openai-compatible provider. */
export const OPENAI_DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";

/** Environment variable names (the values are secrets and never enter config or logs). */
const ENV_NAME = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an environment variable name like RAKUTEN_ACCESS_KEY",
  );

const embeddingsSchema = z.strictObject({
  /** `local`: built-in lexical vectors (offline); `openai-compatible`: any POST /v1/embeddings. */
  provider: z.enum(["local", "openai-compatible"]).default("local"),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().trim().min(1).max(200).optional(),
  api_key_env: ENV_NAME.default("OPENAI_API_KEY"),
  batch_size: z.number().int().min(1).max(2048).default(64),
  /** Vector size of the local provider (the remote model decides its own). */
  dimensions: z.number().int().min(8).max(4096).default(256),
});

/** `pipelines.rakuten` in tidemark.yaml. */
export const rakutenSettingsSchema = z.strictObject({
  /** API root; the old host (`https://app.rakuten.co.jp/services/api`) is also understood. */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Where the endpoints live: `openapi` (new host) or `legacy` (old host); default from base_url. */
  host_style: z.enum(["openapi", "legacy"]).optional(),
  application_id_env: ENV_NAME.default("RAKUTEN_APPLICATION_ID"),
  access_key_env: ENV_NAME.default("RAKUTEN_ACCESS_KEY"),
  /** Optional affiliate id variable (adds affiliateUrl to items when set). */
  affiliate_id_env: ENV_NAME.default("RAKUTEN_AFFILIATE_ID"),
  /** How the access key is sent: `query` (accessKey=…) or `bearer` (Authorization header). */
  access_key_in: z.enum(["query", "bearer"]).default("query"),
  /** Sent as Referer/Origin when the application is registered with allowed sites. */
  referer: z.url({ protocol: /^https?$/ }).optional(),
  format_version: z.union([z.literal(1), z.literal(2)]).default(2),
  /** Shared by every run and process using the same application id. */
  requests_per_second: z.number().positive().max(100_000).default(RAKUTEN_DEFAULT_RPS),
  /**
   * `shared`: one bucket per application id in the database, for every run and process;
   * `process`: each client paces itself only (benchmarks against a fake without a limit).
   */
  rate_limit_scope: z.enum(["shared", "process"]).default("shared"),
  retry_max_attempts: z.number().int().min(1).max(10).default(4),
  request_timeout_ms: z.number().int().min(100).default(30_000),
  embeddings: embeddingsSchema.default({
    provider: "local",
    api_key_env: "OPENAI_API_KEY",
    batch_size: 64,
    dimensions: 256,
  }),
  /** false: ignore TIDEMARK_RAKUTEN_URL and TIDEMARK_EMBEDDINGS_URL (the demo's safety). */
  use_env: z.boolean().default(true),
});

/** Resolved embeddings settings (used by the embedding jobs and `rakuten similar`). */
export interface RakutenEmbeddingSettings {
  provider: "local" | "openai-compatible";
  /** Undefined for `local`; required (checked at config load) for `openai-compatible`. */
  baseUrl: string | undefined;
  model: string;
  apiKeyEnv: string;
  batchSize: number;
  dimensions: number;
}

/** Resolved settings of the rakuten pipeline (tidemark.yaml + environment); holds no secret. */
export interface RakutenSettings {
  baseUrl: string;
  hostStyle: "openapi" | "legacy";
  applicationIdEnv: string;
  accessKeyEnv: string;
  affiliateIdEnv: string;
  accessKeyIn: "query" | "bearer";
  referer: string | undefined;
  formatVersion: 1 | 2;
  requestsPerSecond: number;
  rateLimitScope: "shared" | "process";
  retryMaxAttempts: number;
  requestTimeoutMs: number;
  embeddings: RakutenEmbeddingSettings;
}

/** Environment variables that override `pipelines.rakuten` keys. */
const RAKUTEN_ENV: readonly EnvOverride[] = [
  { name: "TIDEMARK_RAKUTEN_URL", path: ["base_url"], kind: "http-url" },
  { name: "TIDEMARK_RAKUTEN_REQUESTS_PER_SECOND", path: ["requests_per_second"], kind: "integer" },
  { name: "TIDEMARK_EMBEDDINGS_URL", path: ["embeddings", "base_url"], kind: "http-url" },
  { name: "TIDEMARK_EMBEDDINGS_PROVIDER", path: ["embeddings", "provider"], kind: "string" },
];

/** The old host's API root ends in /services/api. */
function guessHostStyle(baseUrl: string): "openapi" | "legacy" {
  return /\/services\/api$/.test(new URL(baseUrl).pathname.replace(/\/+$/, ""))
    ? "legacy"
    : "openapi";
}

/** Parsed `pipelines.rakuten` → what the jobs use. */
function resolve(s: z.output<typeof rakutenSettingsSchema>): RakutenSettings {
  const baseUrl = (s.base_url ?? RAKUTEN_DEFAULT_URL).replace(/\/+$/, "");
  const e = s.embeddings;
  return {
    baseUrl,
    hostStyle: s.host_style ?? guessHostStyle(baseUrl),
    applicationIdEnv: s.application_id_env,
    accessKeyEnv: s.access_key_env,
    affiliateIdEnv: s.affiliate_id_env,
    accessKeyIn: s.access_key_in,
    referer: s.referer,
    formatVersion: s.format_version,
    requestsPerSecond: s.requests_per_second,
    rateLimitScope: s.rate_limit_scope,
    retryMaxAttempts: s.retry_max_attempts,
    requestTimeoutMs: s.request_timeout_ms,
    embeddings: {
      provider: e.provider,
      baseUrl: e.base_url?.replace(/\/+$/, ""),
      model:
        e.model ??
        (e.provider === "local" ? LOCAL_EMBEDDING_MODEL : OPENAI_DEFAULT_EMBEDDING_MODEL),
      apiKeyEnv: e.api_key_env,
      batchSize: e.batch_size,
      dimensions: e.dimensions,
    },
  };
}

/**
 * `pipelines.rakuten` in tidemark.yaml, overridden by `TIDEMARK_RAKUTEN_URL` and
 * `TIDEMARK_EMBEDDINGS_URL`; credentials are read at run time from the variables it names.
 */
export const rakutenSettings = defineSettings({
  schema: rakutenSettingsSchema.superRefine((s, ctx) => {
    if (s.embeddings.provider === "openai-compatible" && s.embeddings.base_url === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["embeddings", "base_url"],
        message: "is required for the openai-compatible provider (or set TIDEMARK_EMBEDDINGS_URL)",
      });
    }
  }),
  env: RAKUTEN_ENV,
  resolve,
});
