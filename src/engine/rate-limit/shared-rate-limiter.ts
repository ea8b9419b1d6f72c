import type { Kysely } from "kysely";
import type { DialectName } from "../../infra/db/dialect.ts";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { writeTransaction } from "../../infra/db/write-transaction.ts";
import { type Clock, isoTimestamp, systemClock } from "../clock/clock.ts";
import { abortableSleep, type SleepFn } from "../http/retry-policy.ts";
import type { RateLimitTables } from "./rate-limit-tables.ts";
import { checkLimit, type TokenBucketLimit, takeTokens } from "./token-bucket.ts";
import { leaseSize, TokenLease } from "./token-lease.ts";

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
 *
 * At high rates one transaction per token would cost more than the requests it paces, so a
 * transaction takes a lease: up to leaseSize(rate) tokens (50 ms worth; one below 40/s, so slow
 * limits behave exactly as a plain bucket), never more than the bucket holds at that moment.
 * The spares serve this limiter's other callers of the key and expire as TokenLease describes,
 * so all processes together still stay within `burst + rate × elapsed`. Callers arriving while
 * a lease is being taken wait for it instead of starting their own transaction, and callers
 * finding the bucket empty are told the known wait without one. With burst 1 the bucket never
 * holds two tokens, so leases stay at one token: only the saved waiting transactions remain.
 */
export class SharedRateLimiter {
  readonly #db: Kysely<RateLimitTables>;
  readonly #dialect: DialectName;
  readonly #clock: Clock;
  readonly #sleep: SleepFn;
  /** Per key: the spare tokens of the last lease. */
  readonly #leases = new Map<string, TokenLease>();
  /** Per key: the lease transaction under way (its result: 0 or ms to wait). */
  readonly #leasing = new Map<string, Promise<number>>();
  /** Per key: no token before this time (ms, this limiter's clock), as the last take found. */
  readonly #notBefore = new Map<string, number>();

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
    const size = leaseSize(limit.ratePerSecond);
    if (size === 1) return this.#take(key, limit, 1);
    for (;;) {
      const nowMs = this.#clock.now().getTime();
      if (this.#leases.get(key)?.take(nowMs)) return 0;
      this.#leases.delete(key);
      // Tokens only appear by refill and other processes only take them, so a token found to
      // be due at a time is not there sooner: waiting callers need no transaction to learn it.
      const due = this.#notBefore.get(key) ?? 0;
      if (due > nowMs) return Math.ceil(due - nowMs);
      const leasing = this.#leasing.get(key);
      if (!leasing) break;
      // Nothing free when the lease was taken: nor is there now.
      const waitMs = await leasing.catch(() => 0);
      if (waitMs > 0) return waitMs;
    }
    const leasing = this.#take(key, limit, size).finally(() => this.#leasing.delete(key));
    this.#leasing.set(key, leasing);
    return leasing;
  }

  /** One transaction taking up to `most` tokens; the ones beyond the first become the lease. */
  async #take(key: string, limit: TokenBucketLimit, most: number): Promise<number> {
    const { waitMs, lease, nowMs } = await this.#locked(async (db) => {
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
      const nowMs = this.#clock.now().getTime();
      const taken = takeTokens(stored, nowMs, limit, most);
      if (!taken.granted) return { waitMs: taken.waitMs, nowMs };
      await db
        .updateTable("tm_rate_limits")
        .set({ tokens: taken.state.tokens, updated_at: isoTimestamp(new Date(taken.state.atMs)) })
        .where("key", "=", key)
        .execute();
      const spare = taken.count - 1;
      const lease = spare > 0 ? new TokenLease(spare, taken.state.tokens, nowMs, limit) : undefined;
      return { waitMs: 0, lease, nowMs };
    });
    // Only once committed: tokens of a rolled-back take were never the process's to spend.
    if (lease) this.#leases.set(key, lease);
    if (most > 1) this.#notBefore.set(key, nowMs + waitMs);
    return waitMs;
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
