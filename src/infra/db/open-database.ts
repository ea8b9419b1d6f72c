import { mkdirSync } from "node:fs";
import path from "node:path";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { DatabaseTarget } from "../config/load-config.ts";
import { ConfigError } from "../errors.ts";
import { redactText, redactUrlPassword } from "../logging/redact.ts";
import type { DialectName } from "./dialect.ts";
import { FlattenSchemaPlugin } from "./flatten-schema-plugin.ts";
import { withStatementCache } from "./statement-cache.ts";

/** An open database: one Kysely instance over SQLite or Postgres. */
export interface Database {
  readonly dialect: DialectName;
  /** Untyped handle; callers narrow it with `typed<Tables>(db)`. */
  readonly kysely: Kysely<object>;
  /** Human-readable target (file path or URL without password). */
  readonly description: string;
  close(): Promise<void>;
}

/** The database handle typed with a set of tables (engine's or a pipeline's). */
export function typed<T>(db: Database): Kysely<T> {
  return db.kysely as unknown as Kysely<T>;
}

// pg OIDs parsed so that both dialects hand back the same JS shapes.
const PG_INT8 = 20;
const PG_JSON = 114;
const PG_TIMESTAMP = 1114;
const PG_TIMESTAMPTZ = 1184;
const PG_JSONB = 3802;

/** `2026-11-21 12:00:00.123456+00` → `2026-11-21T12:00:00.123Z`. */
function parsePgTimestamp(value: string): string {
  const iso = value.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00");
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** A postgres URL fit to print: the password (in the userinfo or the query) replaced by `***`. */
export function redactDatabaseUrl(url: string): string {
  return redactUrlPassword(url);
}

/** Why a connection failed, in a few words (pg and Node errors; AggregateError has no message). */
export function connectFailure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] };
  const first = Array.isArray(e.errors) ? (e.errors[0] as typeof e | undefined) : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  const message = typeof e.message === "string" && e.message !== "" ? e.message : undefined;
  const detail = message ?? (typeof first?.message === "string" ? first.message : undefined);
  if (code === "ECONNREFUSED")
    return `connection refused (${detail ?? code}): is the server running?`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `unknown host (${detail ?? code})`;
  if (code === "ENOTDIR" || code === "EEXIST") return "part of the path is a file, not a folder";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  return (detail ?? code ?? String(err)).split("\n")[0] ?? "";
}

/** One line for a database that cannot be used: names the target, never its password. */
function unusable(where: string, what: string, err: unknown): ConfigError {
  return new ConfigError(`database ${where}: ${what}: ${redactText(connectFailure(err))}`, {
    cause: err,
  });
}

async function openSqlite(file: string, busyTimeoutMs: number): Promise<Database> {
  const { default: BetterSqlite3 } = await import("better-sqlite3");
  if (file !== ":memory:") {
    const dir = path.dirname(file);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw unusable(file, `cannot create its folder ${dir}`, err);
    }
  }
  let sqlite: InstanceType<typeof BetterSqlite3>;
  try {
    sqlite = new BetterSqlite3(file, { timeout: busyTimeoutMs });
  } catch (err) {
    throw unusable(file, "cannot open", err);
  }
  try {
    // The first statement reads the file: a folder or a non-database file fails here.
    sqlite.pragma("journal_mode = WAL");
  } catch (err) {
    sqlite.close();
    throw unusable(file, "cannot open", err);
  }
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  const kysely = new Kysely<object>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: [new FlattenSchemaPlugin()],
  });
  return { dialect: "sqlite", kysely, description: file, close: () => kysely.destroy() };
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import("pg");
  const builtin = pg.types;
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === PG_INT8) return (v: string) => Number(v);
        if (oid === PG_JSON || oid === PG_JSONB) return (v: string) => v;
        if (oid === PG_TIMESTAMPTZ) return parsePgTimestamp;
        if (oid === PG_TIMESTAMP) return (v: string) => parsePgTimestamp(`${v}+00`);
        return builtin.getTypeParser(oid, format ?? "text");
      }) as typeof builtin.getTypeParser,
    },
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const description = redactDatabaseUrl(url);
  // Connect once now, so an unreachable server is one clear error here rather than a stack
  // trace from whichever query comes first. The connection stays in the pool for that query.
  try {
    (await pool.connect()).release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw unusable(description, "cannot connect", err);
  }
  const kysely = new Kysely<object>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: "postgres",
    kysely,
    description,
    close: () => kysely.destroy(),
  };
}

/** Opens the configured database (the SQLite file is created with its folder if missing). */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.dialect === "postgres"
    ? openPostgres(target.url)
    : openSqlite(target.path, target.busyTimeoutMs);
}
