import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Clock } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import { pacificDay } from "../client/pacific-day.ts";
import type { BooksTables } from "../tables.ts";

/** The stored identity of an API key: its SHA-256, or `anonymous` for keyless requests. */
export function apiKeyHash(key: string | undefined): string {
  return key === undefined ? "anonymous" : createHash("sha256").update(key).digest("hex");
}

/** Requests counted on a quota day (`YYYY-MM-DD`, Pacific), over every API key. */
export async function quotaUsedOnDay(db: Kysely<BooksTables>, day: string): Promise<number> {
  const row = await db
    .selectFrom("books.quota_usage")
    .select(sql<number | string | null>`sum(requests)`.as("used"))
    .where("day", "=", day)
    .executeTakeFirst();
  return Number(row?.used ?? 0);
}

/**
 * A daily request budget per API key, counted in the database so that every job and process
 * sharing a key shares the budget. The day is Google's quota day (midnight Pacific time).
 */
export class QuotaRepo {
  constructor(
    private readonly db: Kysely<BooksTables>,
    private readonly clock: Clock,
    private readonly keyHash: string,
    readonly dailyLimit: number,
  ) {}

  /**
   * Takes one request from today's budget. Atomic: the row is created or incremented only while
   * below the limit, so concurrent runs can never overspend. False = budget spent.
   */
  async tryReserve(): Promise<boolean> {
    const now = this.clock.now();
    const row = await this.db
      .insertInto("books.quota_usage")
      .values({
        key_hash: this.keyHash,
        day: pacificDay(now),
        requests: 1,
        updated_at: isoTimestamp(now),
      })
      .onConflict((oc) =>
        oc
          .columns(["key_hash", "day"])
          .doUpdateSet({
            requests: sql<number>`${sql.ref("books.quota_usage.requests")} + 1`,
            updated_at: (eb) => eb.ref("excluded.updated_at"),
          })
          .where(sql.ref("books.quota_usage.requests"), "<", this.dailyLimit),
      )
      .returning("requests")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Counts extra requests already made (HTTP retries), even past the limit. */
  async addUsed(count: number): Promise<void> {
    if (count <= 0) return;
    await this.#bump(sql<number>`${sql.ref("books.quota_usage.requests")} + ${count}`, count);
  }

  /** Marks today's budget as spent: the API itself said the quota is exhausted. */
  async markSpent(): Promise<void> {
    const limit = this.dailyLimit;
    await this.#bump(
      sql<number>`case when ${sql.ref("books.quota_usage.requests")} > ${limit} then ${sql.ref("books.quota_usage.requests")} else ${limit} end`,
      limit,
    );
  }

  /** Requests counted today. */
  async usedToday(): Promise<number> {
    const row = await this.db
      .selectFrom("books.quota_usage")
      .select("requests")
      .where("key_hash", "=", this.keyHash)
      .where("day", "=", pacificDay(this.clock.now()))
      .executeTakeFirst();
    return row?.requests ?? 0;
  }

  async #bump(update: RawBuilder<number>, initial: number): Promise<void> {
    const now = this.clock.now();
    await this.db
      .insertInto("books.quota_usage")
      .values({
        key_hash: this.keyHash,
        day: pacificDay(now),
        requests: initial,
        updated_at: isoTimestamp(now),
      })
      .onConflict((oc) =>
        oc.columns(["key_hash", "day"]).doUpdateSet({
          requests: update,
          updated_at: (eb) => eb.ref("excluded.updated_at"),
        }),
      )
      .execute();
  }
}
