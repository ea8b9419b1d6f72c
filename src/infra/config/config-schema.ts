import { z } from "zod";
import { isAddressOrRange } from "./trusted-proxies.ts";

const logLevel = z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);

const s3Schema = z
  .object({
    bucket: z.string().min(1),
    prefix: z.string().default(""),
    region: z.string().default("us-east-1"),
    endpoint: z.url().optional(),
    force_path_style: z.boolean().default(false),
    access_key_id: z.string().optional(),
    secret_access_key: z.string().optional(),
  })
  .strict()
  // One without the other would fail every S3 call; say so when the configuration loads.
  .superRefine((s3, ctx) => {
    if ((s3.access_key_id === undefined) === (s3.secret_access_key === undefined)) return;
    const missing = s3.access_key_id === undefined ? "access_key_id" : "secret_access_key";
    ctx.addIssue({
      code: "custom",
      path: [missing],
      message:
        "set access_key_id and secret_access_key together (TIDEMARK_S3_ACCESS_KEY_ID, TIDEMARK_S3_SECRET_ACCESS_KEY), or neither to use the AWS default chain",
    });
  });

/** Why a postgres:// URL that `new URL()` (and so pg) cannot read is refused. */
const POSTGRES_URL_UNPARSABLE =
  "is not a valid URL: percent-encode @ / ? # % and spaces in the user name and password (@ is %40)";

/** The validated shape of tidemark.yaml (after TIDEMARK_* overrides). */
export const configSchema = z
  .object({
    /** Deployment environment, as a job's context carries it (`ctx.env`). */
    env: z.enum(["dev", "prod"]).default("dev"),
    /** Folder for the SQLite file, blobs and pipeline files; relative to the config file. */
    data_dir: z.string().min(1).default("./data"),
    database: z
      .object({
        /** `sqlite:<path>` / a bare path, or `postgres://…`. Default `<data_dir>/tidemark.db`. */
        url: z
          .string()
          .min(1)
          .refine((v) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^postgres(ql)?:\/\//i.test(v), {
            message: "must be a SQLite path (sqlite:<file>) or a postgres:// URL",
          })
          .refine((v) => !/^sqlite:\s*$/i.test(v), { message: "sqlite: needs a file after it" })
          .refine((v) => !/^postgres(ql)?:\/\//i.test(v) || URL.canParse(v), {
            message: POSTGRES_URL_UNPARSABLE,
          })
          .optional(),
        busy_timeout_ms: z.number().int().positive().default(5000),
      })
      .strict()
      .default({ busy_timeout_ms: 5000 }),
    blobs: z
      .discriminatedUnion("driver", [
        z.object({ driver: z.literal("fs"), root: z.string().min(1).optional() }).strict(),
        z.object({ driver: z.literal("s3"), s3: s3Schema }).strict(),
      ])
      .default({ driver: "fs" }),
    log: z
      .object({ level: logLevel.default("info") })
      .strict()
      .default({ level: "info" }),
    runs: z
      .object({
        /** A run's lease length; a run whose process died is marked abandoned after this. */
        lease_ttl_seconds: z.number().int().min(1).max(86_400).default(60),
      })
      .strict()
      .default({ lease_ttl_seconds: 60 }),
    /** `tidemark serve`: where the HTTP API listens and how processes shut down. */
    server: z
      .object({
        port: z.number().int().min(0).max(65_535).default(8787),
        host: z.string().min(1).default("127.0.0.1"),
        /** Base URL the API is reached at from outside (links in notifications). */
        public_url: z.url().optional(),
        /** SIGTERM/SIGINT: in-flight runs get this long to finish before they are aborted. */
        shutdown_grace_seconds: z.number().int().min(0).max(3600).default(30),
        /** Largest request body accepted; a larger one is answered 413 without being read. */
        body_limit_bytes: z
          .number()
          .int()
          .min(1024)
          .max(1024 ** 3)
          .default(1024 * 1024),
        /** Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges). */
        trusted_proxies: z
          .array(
            z.string().refine(isAddressOrRange, {
              error: "must be an IP address or a CIDR range such as 10.0.0.0/8",
            }),
          )
          .default([]),
      })
      .strict()
      .default({
        port: 8787,
        host: "127.0.0.1",
        shutdown_grace_seconds: 30,
        body_limit_bytes: 1024 * 1024,
        trusted_proxies: [],
      }),
    /** Bearer tokens accepted by the HTTP API (TIDEMARK_API_TOKENS, comma-separated). */
    api_tokens: z
      .array(z.string().min(16, "use at least 16 random characters (openssl rand -hex 32)"))
      .default([]),
    /** Failure notification: a webhook POSTed for every failed or abandoned run. */
    notify: z
      .object({
        webhook_url: z.url().optional(),
        /** Signs each body with HMAC-SHA256 (`X-Tidemark-Signature: sha256=<hex>`). */
        webhook_secret: z.string().min(1).optional(),
        /** Retries after the first failed delivery, with exponential backoff. */
        retries: z.number().int().min(0).max(10).default(5),
        timeout_seconds: z.number().int().min(1).max(300).default(10),
      })
      .strict()
      .default({ retries: 5, timeout_seconds: 10 }),
    /** The cron scheduler of `tidemark serve`. */
    scheduler: z
      .object({
        /** A missed occurrence (process down, later than the grace): skip it, or run once. */
        misfire: z.enum(["skip", "run_once"]).default("skip"),
        /** An occurrence this late still fires normally. */
        misfire_grace_seconds: z.number().int().min(0).max(86_400).default(60),
        /** How often jobs are re-read, so added/changed jobs are picked up. */
        reload_seconds: z.number().int().min(1).max(3600).default(30),
      })
      .strict()
      .default({ misfire: "skip", misfire_grace_seconds: 60, reload_seconds: 30 }),
    /** Queue engine: `embedded` (tables in the engine database) or `pg-boss` (Postgres). */
    queue: z.enum(["embedded", "pg-boss"]).default("embedded"),
    /** pg-boss settings, read when queue is pg-boss. */
    pg_boss: z
      .object({
        /** Postgres URL for pg-boss; default database.url (which must then be Postgres). */
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//i, { message: "must be a postgres:// URL" })
          .refine((v) => URL.canParse(v), { message: POSTGRES_URL_UNPARSABLE })
          .optional(),
        /** Postgres schema of pg-boss's tables. */
        schema: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]{0,49}$/, {
            message: "must be letters, digits and _ (at most 50), not starting with a digit",
          })
          .default("pgboss"),
        /** How often pg-boss returns dead workers' messages and archives old ones. */
        maintenance_interval_seconds: z.number().int().min(1).max(3600).default(30),
      })
      .strict()
      .default({ schema: "pgboss", maintenance_interval_seconds: 30 }),
    /**
     * Pipelines loaded from outside the package: paths (relative to this file) of modules or
     * names of installed packages, each exporting a pipeline definition.
     */
    plugins: z.array(z.string().min(1)).default([]),
    /** Per-pipeline settings, validated by each pipeline. */
    pipelines: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  })
  .strict();

/** tidemark.yaml as written by the user (before defaults). */
export type ConfigInput = z.input<typeof configSchema>;
/** Validated configuration with defaults applied. */
export type ParsedConfig = z.output<typeof configSchema>;
