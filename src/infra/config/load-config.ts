import { readFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import { ConfigError } from "../errors.ts";
import { configSchema, type ParsedConfig } from "./config-schema.ts";
import { applyEnvOverrides, type EnvSources, envOverrides } from "./env-overrides.ts";
import { formatZodIssues } from "./format-zod-issues.ts";
import { locateConfig } from "./locate-config.ts";
import { type PipelineSettingsSpec, resolveAllPipelineSettings } from "./pipeline-settings.ts";

/** Names looked up in the working directory when no --config is given. */
export { CONFIG_FILE_NAMES, locateConfig } from "./locate-config.ts";

export type DatabaseTarget =
  | { dialect: "sqlite"; path: string; busyTimeoutMs: number }
  | { dialect: "postgres"; url: string };

export type BlobTarget =
  | { driver: "fs"; root: string }
  | { driver: "s3"; s3: Extract<ParsedConfig["blobs"], { driver: "s3" }>["s3"] };

/** The queue engine and, for pg-boss, where it keeps its tables. */
export type QueueTarget =
  | { engine: "embedded" }
  | { engine: "pg-boss"; url: string; schema: string; maintenanceIntervalSeconds: number };

/** Configuration with every path resolved and every default applied. */
export interface Config {
  /** The file read, or undefined when running on defaults. */
  file: string | undefined;
  env: ParsedConfig["env"];
  dataDir: string;
  database: DatabaseTarget;
  blobs: BlobTarget;
  log: ParsedConfig["log"];
  runs: { leaseTtlMs: number };
  /** `plugins:` as written: module paths (relative to the file) and package names. */
  plugins: readonly string[];
  /** `pipelines:` as written (after nothing but YAML parsing). */
  pipelines: ParsedConfig["pipelines"];
  /**
   * Each registered pipeline's validated, resolved settings, by pipeline name (filled when the
   * loader was given the pipelines' specs; see `LoadConfigOptions.pipelineSettings`).
   */
  settings: Readonly<Record<string, unknown>>;
  server: ServerSettings;
  /** Largest request body the HTTP API reads (`server.body_limit_bytes`); larger → 413. */
  bodyLimitBytes: number;
  /** Bearer tokens of the HTTP API (secrets: never log them). */
  apiTokens: readonly string[];
  notify: NotifySettings;
  scheduler: SchedulerSettings;
  queue: QueueTarget;
}

/** `server:` (tidemark serve / worker). */
export interface ServerSettings {
  port: number;
  host: string;
  publicUrl: string | undefined;
  shutdownGraceMs: number;
  /** `server.trusted_proxies`: addresses or CIDR ranges whose X-Forwarded-For is believed. */
  trustedProxies: readonly string[];
}

/** `notify:` (failure webhook). */
export interface NotifySettings {
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  retries: number;
  timeoutMs: number;
}

/** `scheduler:` (cron scheduler of tidemark serve). */
export interface SchedulerSettings {
  misfire: "skip" | "run_once";
  misfireGraceMs: number;
  reloadMs: number;
}

/** Server settings when the config names none. */
export const DEFAULT_SERVER_SETTINGS: ServerSettings = {
  port: 8787,
  host: "127.0.0.1",
  publicUrl: undefined,
  shutdownGraceMs: 30_000,
  trustedProxies: [],
};

/** Notification settings when the config names none (no webhook). */
export const DEFAULT_NOTIFY_SETTINGS: NotifySettings = {
  webhookUrl: undefined,
  webhookSecret: undefined,
  retries: 5,
  timeoutMs: 10_000,
};

/** Scheduler settings when the config names none. */
export const DEFAULT_SCHEDULER_SETTINGS: SchedulerSettings = {
  misfire: "skip",
  misfireGraceMs: 60_000,
  reloadMs: 30_000,
};

export interface LoadConfigOptions {
  /** Explicit --config path; must exist. */
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Every registered pipeline's settings spec (undefined: the pipeline has none). Given, the
   * `pipelines:` section is validated here: unknown pipelines and keys are refused at load.
   */
  pipelineSettings?: ReadonlyMap<string, PipelineSettingsSpec | undefined>;
}

/** Reads a YAML file into a plain object, reporting syntax errors with line and column. */
export function readYamlFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`${file}: cannot read: ${(err as Error).message}`);
  }
  const doc = parseDocument(text, { prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const at = pos ? `:${pos.line}:${pos.col}` : "";
    // yaml's first line ends "at line 2, column 1:" before a code frame: `at` already says it.
    const reason = (first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError(`${file}${at}: invalid YAML: ${reason}`);
  }
  try {
    return doc.toJS();
  } catch (err) {
    // Aliases resolve only here: `*name` without its `&name`, or too many of them (a bomb).
    throw new ConfigError(`${file}: invalid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
}

function resolveDatabase(url: string | undefined, dataDir: string, base: string, busy: number) {
  if (url && /^postgres(ql)?:\/\//i.test(url)) return { dialect: "postgres", url } as const;
  const file = url ? url.replace(/^sqlite:/i, "") : path.join(dataDir, "tidemark.db");
  return { dialect: "sqlite", path: path.resolve(base, file), busyTimeoutMs: busy } as const;
}

function resolveQueue(cfg: ParsedConfig, database: DatabaseTarget, where: string): QueueTarget {
  if (cfg.queue === "embedded") return { engine: "embedded" };
  const url = cfg.pg_boss.url ?? (database.dialect === "postgres" ? database.url : undefined);
  if (!url) {
    throw new ConfigError(
      `${where}: queue: pg-boss needs Postgres: set pg_boss.url, or a postgres:// database.url`,
    );
  }
  return {
    engine: "pg-boss",
    url,
    schema: cfg.pg_boss.schema,
    maintenanceIntervalSeconds: cfg.pg_boss.maintenance_interval_seconds,
  };
}

/**
 * A copy without keys whose value is empty (`log:` with every setting below it commented out
 * reads as null): an empty section means the defaults, as if it were not there.
 */
function withoutEmptyKeys(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === null) continue;
    out[key] =
      typeof value === "object" && !Array.isArray(value)
        ? withoutEmptyKeys(value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** Finds, parses, overrides from TIDEMARK_* and validates the configuration. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = locateConfig(options);
  const where = file ?? "configuration";
  const raw = file ? readYamlFile(file) : {};
  if (raw !== null && raw !== undefined && (typeof raw !== "object" || Array.isArray(raw))) {
    throw new ConfigError(`${where}: expected a mapping of settings at the top level`);
  }
  const sources: EnvSources = new Map();
  const input = applyEnvOverrides(
    withoutEmptyKeys((raw ?? {}) as Record<string, unknown>),
    env,
    envOverrides,
    sources,
  );
  // Parsed once per process: zod's compiled fast path (generated and compiled at a schema's
  // first parse) would cost more than it saves.
  const parsed = configSchema.safeParse(input, { jitless: true });
  if (!parsed.success) {
    throw new ConfigError(formatZodIssues(where, parsed.error, input, sources, configSchema));
  }
  const cfg = parsed.data;
  const base = file ? path.dirname(file) : (options.cwd ?? process.cwd());
  const dataDir = path.resolve(base, cfg.data_dir);
  const blobs: BlobTarget =
    cfg.blobs.driver === "fs"
      ? { driver: "fs", root: path.resolve(base, cfg.blobs.root ?? path.join(dataDir, "blobs")) }
      : { driver: "s3", s3: cfg.blobs.s3 };
  const database = resolveDatabase(cfg.database.url, dataDir, base, cfg.database.busy_timeout_ms);
  const settings = options.pipelineSettings
    ? resolveAllPipelineSettings(cfg.pipelines, options.pipelineSettings, env, { file, dataDir })
    : {};
  return {
    file,
    env: cfg.env,
    dataDir,
    database,
    blobs,
    log: cfg.log,
    runs: { leaseTtlMs: cfg.runs.lease_ttl_seconds * 1000 },
    plugins: cfg.plugins,
    pipelines: cfg.pipelines,
    settings,
    server: {
      port: cfg.server.port,
      host: cfg.server.host,
      publicUrl: cfg.server.public_url,
      shutdownGraceMs: cfg.server.shutdown_grace_seconds * 1000,
      trustedProxies: cfg.server.trusted_proxies,
    },
    bodyLimitBytes: cfg.server.body_limit_bytes,
    apiTokens: cfg.api_tokens,
    notify: {
      webhookUrl: cfg.notify.webhook_url,
      webhookSecret: cfg.notify.webhook_secret,
      retries: cfg.notify.retries,
      timeoutMs: cfg.notify.timeout_seconds * 1000,
    },
    scheduler: {
      misfire: cfg.scheduler.misfire,
      misfireGraceMs: cfg.scheduler.misfire_grace_seconds * 1000,
      reloadMs: cfg.scheduler.reload_seconds * 1000,
    },
    queue: resolveQueue(cfg, database, where),
  };
}
