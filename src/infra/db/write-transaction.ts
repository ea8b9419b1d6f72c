import { type Kysely, sql } from "kysely";
import type { DialectName } from "./dialect.ts";

/**
 * Runs `fn` as one transaction that holds the write lock from its first statement: on SQLite
 * `BEGIN IMMEDIATE` takes the database's write lock up front (waiting up to busy_timeout for
 * another process), so a read and the write that depends on it never interleave with another
 * writer; on Postgres an ordinary transaction (callers lock rows with `for update`).
 */
export function writeTransaction<DB, R>(
  db: Kysely<DB>,
  dialect: DialectName,
  fn: (tx: Kysely<DB>) => Promise<R>,
): Promise<R> {
  if (dialect === "postgres") return db.transaction().execute(fn);
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}
