import { z } from "zod";

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
  .strict();

/** The validated shape of tidemark.yaml (after TIDEMARK_* overrides). */
export const configSchema = z
  .object({
    /** Deployment environment, as seed 000's JobContext.env. */
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
    /** Per-pipeline settings, validated by each pipeline. */
    pipelines: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  })
  .strict();

/** tidemark.yaml as written by the user (before defaults). */
export type ConfigInput = z.input<typeof configSchema>;
/** Validated configuration with defaults applied. */
export type ParsedConfig = z.output<typeof configSchema>;
