import { ConfigError } from "../../engine/errors.ts";

type Path = readonly string[];
/** `list`: comma-separated, blanks dropped (TIDEMARK_API_TOKENS=a,b). */
type Kind = "string" | "boolean" | "integer" | "list";

/** TIDEMARK_* variables and the config path each one overrides. */
export const envOverrides: ReadonlyArray<{ name: string; path: Path; kind: Kind }> = [
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

/** Returns a copy of the raw config with every set TIDEMARK_* variable written into it. */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const out = structuredClone(raw);
  for (const { name, path, kind } of envOverrides) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    let node: Record<string, unknown> = out;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1)!] =
      kind === "list"
        ? value
            .split(",")
            .map((v) => v.trim())
            .filter((v) => v !== "")
        : kind === "boolean"
          ? parseBoolean(name, value)
          : kind === "integer"
            ? parseInteger(name, value)
            : value;
  }
  return out;
}
