import { type Kysely, sql, type Transaction } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { type Clock, isoTimestamp } from "../clock/clock.ts";
import type { CursorTables } from "./cursor-tables.ts";
import { stableJson } from "./stable-json.ts";

/** A stored cursor: its value and when it was last written (ISO-8601 UTC). */
export interface CursorState<T> {
  value: T;
  updatedAt: string;
}

/** A stored cursor with its key, as `list` returns it. */
export interface CursorEntry<T = unknown> extends CursorState<T> {
  key: string;
}

function isDatabase(db: Database | Kysely<CursorTables>): db is Database {
  return "kysely" in db && "dialect" in db;
}

function checkKey(key: string, what = "cursor key"): void {
  if (typeof key !== "string" || key === "")
    throw new TypeError(`${what} must be a non-empty string`);
}

/**
 * Durable positions of jobs in their sources (`tm_cursors`), for pipelines whose source does
 * not define a table of its own. Values are JSON; `compareAndSet` is one conditional statement,
 * so of two writers that read the same value exactly one moves it, on SQLite and Postgres.
 */
export class CursorStore {
  readonly #db: Kysely<CursorTables>;
  readonly #clock: Clock;

  constructor(db: Database | Kysely<CursorTables>, clock: Clock) {
    this.#db = isDatabase(db) ? typed<CursorTables>(db) : db;
    this.#clock = clock;
  }

  /**
   * The same store working through `executor`, any Kysely handle on the same database — in
   * particular a caller's `Transaction`, so cursors commit or roll back with the caller's rows.
   */
  within<DB>(executor: Transaction<DB> | Kysely<DB>): CursorStore {
    // The caller's handle is typed with its own tables; this store only touches tm_cursors.
    return new CursorStore(executor as unknown as Kysely<CursorTables>, this.#clock);
  }

  /** The cursor's value and last write time; undefined when it was never set (or was reset). */
  async get<T = unknown>(key: string): Promise<CursorState<T> | undefined> {
    checkKey(key);
    const row = await this.#db
      .selectFrom("tm_cursors")
      .select(["value", "updated_at"])
      .where("key", "=", key)
      .executeTakeFirst();
    return row && { value: JSON.parse(row.value) as T, updatedAt: row.updated_at };
  }

  /**
   * Writes `next` only if the stored value equals `expected` (compared as JSON; `undefined`
   * means "only if absent"). Returns whether it wrote.
   */
  async compareAndSet<T>(key: string, expected: T | undefined, next: T): Promise<boolean> {
    checkKey(key);
    const value = stableJson(next);
    const updated_at = isoTimestamp(this.#clock.now());
    if (expected === undefined) {
      // A concurrent insert of the same key makes this a no-op (Postgres waits for it first).
      const inserted = await this.#db
        .insertInto("tm_cursors")
        .values({ key, value, updated_at })
        .onConflict((oc) => oc.column("key").doNothing())
        .returning("key")
        .executeTakeFirst();
      return inserted !== undefined;
    }
    // Postgres types the parameter as jsonb (the column's type), so equality is on JSON values;
    // SQLite compares text, which stableJson makes unique per value.
    const res = await this.#db
      .updateTable("tm_cursors")
      .set({ value, updated_at })
      .where("key", "=", key)
      .where("value", "=", stableJson(expected))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Writes the value unconditionally. */
  async set<T>(key: string, value: T): Promise<void> {
    checkKey(key);
    const row = { value: stableJson(value), updated_at: isoTimestamp(this.#clock.now()) };
    await this.#db
      .insertInto("tm_cursors")
      .values({ key, ...row })
      .onConflict((oc) => oc.column("key").doUpdateSet(row))
      .execute();
  }

  /** Deletes the cursor, so the next run starts from the beginning; whether one existed. */
  async reset(key: string): Promise<boolean> {
    checkKey(key);
    const res = await this.#db.deleteFrom("tm_cursors").where("key", "=", key).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Deletes every cursor whose key starts with `prefix` (never empty); how many it deleted. */
  async resetPrefix(prefix: string): Promise<number> {
    checkKey(prefix, "cursor key prefix");
    const res = await this.#db
      .deleteFrom("tm_cursors")
      .where(startsWith(prefix), "=", prefix)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Every cursor whose key starts with `prefix` (all of them for ""), ordered by key. */
  async list<T = unknown>(prefix = ""): Promise<CursorEntry<T>[]> {
    const rows = await this.#db
      .selectFrom("tm_cursors")
      .select(["key", "value", "updated_at"])
      .$if(prefix !== "", (q) => q.where(startsWith(prefix), "=", prefix))
      .orderBy("key")
      .execute();
    return rows.map((r) => ({
      key: r.key,
      value: JSON.parse(r.value) as T,
      updatedAt: r.updated_at,
    }));
  }
}

/**
 * The first characters of `key`, as long as `prefix`. Not `LIKE`: SQLite's is case-insensitive
 * and both treat `%`/`_` in keys as wildcards. substr counts code points on both dialects.
 */
function startsWith(prefix: string) {
  return sql<string>`substr(${sql.ref("key")}, 1, ${[...prefix].length})`;
}
