import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

// Distinct SQL texts kept prepared: a run repeats a few dozen statements page after page.
const DEFAULT_SIZE = 256;

/**
 * better-sqlite3 for Kysely's SqliteDialect, with each SQL text's prepared statement kept and
 * reused (least recently used dropped first): Kysely prepares every query it runs, and compiling
 * the same statement again on every page cost a run ~4% of its time. A statement still being
 * iterated is never handed out twice.
 */
export function withStatementCache(
  db: BetterSqlite3.Database,
  size = DEFAULT_SIZE,
): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const kept = cache.get(sql);
      if (kept !== undefined && !kept.busy) {
        // Most recently used last: Map keeps insertion order.
        cache.delete(sql);
        cache.set(sql, kept);
        return kept;
      }
      const fresh = db.prepare(sql);
      if (kept === undefined) {
        cache.set(sql, fresh);
        if (cache.size > size) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
      }
      return fresh;
    },
  };
}
