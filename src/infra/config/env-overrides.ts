import { ConfigError } from "../errors.ts";

type Path = readonly string[];
/** `list`: comma-separated, blanks dropped (TIDEMARK_API_TOKENS=a,b). */
export type EnvOverrideKind = "string" | "boolean" | "integer" | "list" | "port" | "http-url";

/** One environment variable and the configuration path it overrides. */
export interface EnvOverride {
  readonly name: string;
  readonly path: Path;
  readonly kind: EnvOverrideKind;
}

/** Where each overridden setting came from: dotted config path → variable name. */
export type EnvSources = Map<string, string>;

/** TIDEMARK_* variables and the config path each one overrides. */
export const envOverrides: readonly EnvOverride[] = [
  { name: "TIDEMARK_ENV", path: ["env"], kind: "string" },
  { name: "TIDEMARK_DATA_DIR", path: ["data_dir"], kind: "string" },
  { name: "TIDEMARK_DATABASE_URL", path: ["database", "url"], kind: "string" },
  { name: "TIDEMARK_LOG_LEVEL", path: ["log", "level"], kind: "string" },
  { name: "TIDEMARK_LEASE_TTL_SECONDS", path: ["runs", "lease_ttl_seconds"], kind: "integer" },
  { name: "TIDEMARK_QUEUE", path: ["queue"], kind: "string" },
  { name: "TIDEMARK_PG_BOSS_URL", path: ["pg_boss", "url"], kind: "string" },
  { name: "TIDEMARK_PG_BOSS_SCHEMA", path: ["pg_boss", "schema"], kind: "string" },
  { name: "TIDEMARK_BLOBS_DRIVER", path: ["blobs", "driver"], kind: "string" },
  { name: "TIDEMARK_BLOBS_ROOT", path: ["blobs", "root"], kind: "string" },
  { name: "TIDEMARK_S3_BUCKET", path: ["blobs", "s3", "bucket"], kind: "string" },
  { name: "TIDEMARK_S3_PREFIX", path: ["blobs", "s3", "prefix"], kind: "string" },
  { name: "TIDEMARK_S3_REGION", path: ["blobs", "s3", "region"], kind: "string" },
  { name: "TIDEMARK_S3_ENDPOINT", path: ["blobs", "s3", "endpoint"], kind: "string" },
  {
    name: "TIDEMARK_S3_FORCE_PATH_STYLE",
    path: ["blobs", "s3", "force_path_style"],
    kind: "boolean",
  },
  { name: "TIDEMARK_S3_ACCESS_KEY_ID", path: ["blobs", "s3", "access_key_id"], kind: "string" },
  {
    name: "TIDEMARK_S3_SECRET_ACCESS_KEY",
    path: ["blobs", "s3", "secret_access_key"],
    kind: "string",
  },
  { name: "TIDEMARK_PORT", path: ["server", "port"], kind: "integer" },
  { name: "TIDEMARK_HOST", path: ["server", "host"], kind: "string" },
  { name: "TIDEMARK_PUBLIC_URL", path: ["server", "public_url"], kind: "string" },
  {
    name: "TIDEMARK_SHUTDOWN_GRACE_SECONDS",
    path: ["server", "shutdown_grace_seconds"],
    kind: "integer",
  },
  { name: "TIDEMARK_BODY_LIMIT_BYTES", path: ["server", "body_limit_bytes"], kind: "integer" },
  { name: "TIDEMARK_TRUSTED_PROXIES", path: ["server", "trusted_proxies"], kind: "list" },
  { name: "TIDEMARK_API_TOKENS", path: ["api_tokens"], kind: "list" },
  { name: "TIDEMARK_NOTIFY_WEBHOOK_URL", path: ["notify", "webhook_url"], kind: "string" },
  { name: "TIDEMARK_NOTIFY_WEBHOOK_SECRET", path: ["notify", "webhook_secret"], kind: "string" },
];

function parseBoolean(name: string, raw: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name}: expected true or false, got ${JSON.stringify(raw)}`);
}

function parseInteger(name: string, raw: string): number {
  if (!/^-?\d+$/.test(raw))
    throw new ConfigError(`${name}: expected an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function parsePort(name: string, raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new ConfigError(`${name}: expected a port number 1-65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

function parseHttpUrl(name: string, raw: string): string {
  if (!/^https?:\/\/[^/\s]+/i.test(raw)) {
    throw new ConfigError(`${name}: expected an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** The typed value of one variable, or a ConfigError naming it. */
function parseValue(name: string, kind: EnvOverrideKind, value: string): unknown {
  switch (kind) {
    case "list":
      return value
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
    case "boolean":
      return parseBoolean(name, value);
    case "integer":
      return parseInteger(name, value);
    case "port":
      return parsePort(name, value);
    case "http-url":
      return parseHttpUrl(name, value);
    default:
      return value;
  }
}

/**
 * Returns a copy of the raw config with every set variable of `table` written into it, and
 * records in `sources` which variable set which path (so errors can name it).
 */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  table: readonly EnvOverride[] = envOverrides,
  sources: EnvSources = new Map(),
): Record<string, unknown> {
  const out = structuredClone(raw);
  for (const { name, path, kind } of table) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    let node: Record<string, unknown> = out;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1)!] = parseValue(name, kind, value);
    sources.set(path.join("."), name);
  }
  return out;
}
