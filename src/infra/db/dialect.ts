import { type ColumnDataType, type Kysely, PostgresAdapter, sql } from "kysely";

export type DialectName = "sqlite" | "postgres";

/** Which dialect a Kysely instance talks to (migrations use this for column types). */
export function dialectOf(db: Kysely<object>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/**
 * Column types that differ between dialects. Timestamps are ISO-8601 UTC strings on both
 * sides (Postgres `timestamptz` is parsed back to the same string), JSON is text on the
 * TypeScript side (Postgres `jsonb`), booleans are 0/1 integers.
 */
export function columnTypes(dialect: DialectName) {
  const pg = dialect === "postgres";
  return {
    timestamp: (pg ? "timestamptz" : "text") as ColumnDataType,
    json: (pg ? "jsonb" : "text") as ColumnDataType,
    bigint: "bigint" as ColumnDataType,
    /** An auto-incrementing integer primary key column type. */
    serial: (pg ? "bigserial" : "integer") as ColumnDataType,
  };
}

/** Creates a Postgres schema for pipeline tables; SQLite has none (tables get a prefix). */
export async function ensureSchema(db: Kysely<object>, schema: string): Promise<void> {
  if (dialectOf(db) === "postgres") {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  }
}
