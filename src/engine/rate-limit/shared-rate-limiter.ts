import type { Kysely } from "kysely";
import type { DialectName } from "../../infra/db/dialect.ts";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { writeTransaction } from "../../infra/db/write-transaction.ts";
import { type Clock, isoTimestamp, systemClock } from "../context/clock.ts";
import { abortableSleep, type SleepFn } from "../http/retry-policy.ts";
import type { RateLimitTables } from "./rate-limit-tables.ts";
import { checkLimit, type TokenBucketLimit, takeToken } from "./token-bucket.ts";

/** Construction options of SharedRateLimiter; both are injectable for tests. */
export interface SharedRateLimiterOptions {
  /** Default: the wall clock. Hosts sharing a limit should keep their clocks in sync (NTP). */
  clock?: Clock;
  /** Default: a real, abortable sleep. */
  sleep?: SleepFn;
}

/**
 * A token bucket per key in `tm_rate_limits`, shared by every process on the database — e.g.
 * every worker calling an API with one credential. Taking a token is one transaction holding
 * the bucket's row: `select … for update` on Postgres, `BEGIN IMMEDIATE` on SQLite, so two
 * processes never spend the same token. Keys are stored in clear: derive them from a hash of
 * a credential, never from the credential itself.
 */
export class SharedRateLimiter {
  readonly #db: Kysely<RateLimitTables>;
  readonly #dialect: DialectName;
  readonly #clock: Clock;
  readonly #sleep: SleepFn;

  constructor(db: Database, options: SharedRateLimiterOptions = {}) {
    this.#db = typed<RateLimitTables>(db);
    this.#dialect = db.dialect;
    this.#clock = options.clock ?? systemClock;
    this.#sleep = options.sleep ?? abortableSleep;
  }

  /** Waits until a token of `key`'s bucket is free and takes it; rejects when `signal` aborts. */
  async acquire(key: string, limit: TokenBucketLimit, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const waitMs = await this.tryAcquire(key, limit);
      if (waitMs === 0) return;
      await this.#sleep(waitMs, signal);
    }
  }

  /** Takes a token if one is free: 0 when taken, else the ms until one is due (none taken). */
  async tryAcquire(key: string, limit: TokenBucketLimit): Promise<number> {
    if (typeof key !== "string" || key === "") {
      throw new TypeError("rate limit key must be a non-empty string");
    }
    checkLimit(limit);
    return this.#locked(async (db) => {
      // A new bucket starts full; a concurrent first take of the key makes this a no-op.
      const fresh = { tokens: limit.burst, updated_at: isoTimestamp(this.#clock.now()) };
      await db
        .insertInto("tm_rate_limits")
        .values({ key, ...fresh })
        .onConflict((oc) => oc.column("key").doNothing())
        .execute();
      const row = await db
        .selectFrom("tm_rate_limits")
        .select(["tokens", "updated_at"])
        .where("key", "=", key)
        .$if(this.#dialect === "postgres", (q) => q.forUpdate())
        .executeTakeFirstOrThrow();
      // The clock is read once the row is ours, so a grant's time is as late as it can be.
      const stored = { tokens: Number(row.tokens), atMs: Date.parse(row.updated_at) };
      const taken = takeToken(stored, this.#clock.now().getTime(), limit);
      if (!taken.granted) return taken.waitMs;
      await db
        .updateTable("tm_rate_limits")
        .set({ tokens: taken.state.tokens, updated_at: isoTimestamp(new Date(taken.state.atMs)) })
        .where("key", "=", key)
        .execute();
      return 0;
    });
  }

  /**
   * Runs `fn` holding the bucket: on Postgres a transaction in which `for update` locks the
   * row; on SQLite the database's write lock, taken up front by `BEGIN IMMEDIATE` (waiting up
   * to busy_timeout) so that no other writer slips between the read and the write.
   */
  #locked<R>(fn: (db: Kysely<RateLimitTables>) => Promise<R>): Promise<R> {
    return writeTransaction(this.#db, this.#dialect, fn);
  }
}
