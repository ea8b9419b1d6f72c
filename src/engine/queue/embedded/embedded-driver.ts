import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { DialectName } from "../../../infra/db/dialect.ts";
import { type Database, typed } from "../../../infra/db/open-database.ts";
import { writeTransaction } from "../../../infra/db/write-transaction.ts";
import { type Clock, isoTimestamp } from "../../clock/clock.ts";
import type { ListedState, QueueMessageInfo, QueueStats } from "../queue.ts";
import type { Delivery, OutgoingMessage, QueueDriver } from "../queue-driver.ts";
import { retryDelayAfter } from "../queue-options.ts";
import { EmbeddedInspector } from "./embedded-inspector.ts";
import { type QueueTables, MESSAGES_TABLE as T } from "./embedded-tables.ts";

/** Tuning of the embedded engine; the defaults suit production. */
export interface EmbeddedQueueOptions {
  /** Completed messages are deleted this long after they finished (default 1 day). */
  completedRetentionSeconds?: number;
  /** Dead-lettered messages are deleted this long after they died (default 14 days). */
  deadRetentionSeconds?: number;
}

// 12 bound values per row: far below SQLite's 32,766 and Postgres's 65,535 parameters.
const INSERT_CHUNK = 1_000;
const IDS_CHUNK = 1_000;

/** Groups deliveries by claim token (one UPDATE per claim batch), ids chunked. */
function byToken(deliveries: readonly Delivery[]): Array<[string, string[]]> {
  const groups = new Map<string, string[]>();
  for (const d of deliveries) {
    const ids = groups.get(d.token) ?? [];
    ids.push(d.message.id);
    groups.set(d.token, ids);
  }
  const out: Array<[string, string[]]> = [];
  for (const [token, ids] of groups) {
    for (let i = 0; i < ids.length; i += IDS_CHUNK) out.push([token, ids.slice(i, i + IDS_CHUNK)]);
  }
  return out;
}

/**
 * The embedded engine: one table in the engine database, the same Kysely queries on SQLite
 * and Postgres. A claim is one `WITH next AS MATERIALIZED (SELECT … LIMIT n) UPDATE … WHERE
 * id IN next RETURNING`: inside
 * `BEGIN IMMEDIATE` on SQLite (one writer at a time, across processes too), with
 * `FOR UPDATE SKIP LOCKED` on Postgres (concurrent claimers skip each other's rows). Every
 * settle is guarded by the claim's lock token, so a late outcome never touches a redelivery.
 */
export class EmbeddedDriver implements QueueDriver {
  readonly engine = "embedded";
  readonly #k: Kysely<QueueTables>;
  readonly #dialect: DialectName;
  readonly #inspector: EmbeddedInspector;

  constructor(
    db: Database,
    private readonly clock: Clock,
    options: EmbeddedQueueOptions = {},
  ) {
    this.#k = typed<QueueTables>(db);
    this.#dialect = db.dialect;
    this.#inspector = new EmbeddedInspector(this.#k, clock, options);
  }

  async insert(queue: string, messages: readonly OutgoingMessage[]): Promise<Set<string>> {
    const now = this.clock.now();
    const nowMs = now.getTime();
    const createdAt = isoTimestamp(now);
    const inserted = new Set<string>();
    // One statement is atomic by itself; several chunks need a transaction to be all-or-nothing.
    const atomically = (fn: (k: Kysely<QueueTables>) => Promise<void>) =>
      messages.length <= INSERT_CHUNK ? fn(this.#k) : this.#write(fn);
    await atomically(async (k) => {
      for (let i = 0; i < messages.length; i += INSERT_CHUNK) {
        const chunk = messages.slice(i, i + INSERT_CHUNK);
        const rows = chunk.map((m) => ({
          id: m.id,
          queue,
          state: "queued" as const,
          payload: JSON.stringify(m.payload === undefined ? null : m.payload),
          attempts: 0,
          retry_limit: m.options.retryLimit,
          retry_delay_ms: m.options.retryDelayMs,
          retry_backoff: m.options.retryBackoff ? 1 : 0,
          visibility_ms: m.options.visibilityMs,
          singleton_key: m.options.singletonKey,
          due_at_ms: nowMs + m.options.startAfterMs,
          created_at: createdAt,
        }));
        const insert = k
          .insertInto(T)
          .values(rows)
          .onConflict((oc) => oc.doNothing());
        if (chunk.some((m) => m.options.singletonKey !== null)) {
          for (const r of await insert.returning("id").execute()) inserted.add(r.id);
        } else {
          await insert.execute();
          for (const m of chunk) inserted.add(m.id);
        }
      }
    });
    return inserted;
  }

  async claim(queue: string, max: number): Promise<Delivery[]> {
    const now = this.clock.now();
    const nowMs = now.getTime();
    const token = randomBytes(12).toString("hex");
    const rows = await this.#claimStatement((k) =>
      k
        // Materialized: evaluated once. Postgres may otherwise re-run an `IN (… LIMIT n
        // SKIP LOCKED)` subquery per row and claim more than n messages.
        .with(
          (cte) => cte("next").materialized(),
          (db) =>
            db
              .selectFrom(T)
              .select("id")
              .where("state", "=", "queued")
              .where("queue", "=", queue)
              .where("due_at_ms", "<=", nowMs)
              .orderBy("due_at_ms")
              .orderBy("id")
              .limit(max)
              .$if(this.#dialect === "postgres", (q) => q.forUpdate().skipLocked()),
        )
        .updateTable(T)
        .set((eb) => ({
          state: "active",
          attempts: eb("attempts", "+", 1),
          lock_token: token,
          started_at: isoTimestamp(now),
          due_at_ms: eb(eb.cast<number>(eb.val(nowMs), "bigint"), "+", eb.ref("visibility_ms")),
        }))
        .where("id", "in", (eb) => eb.selectFrom("next").select("next.id"))
        .where("state", "=", "queued")
        .returning([
          "id",
          "payload",
          "attempts",
          "created_at",
          "visibility_ms",
          "retry_limit",
          "retry_delay_ms",
          "retry_backoff",
        ])
        .execute(),
    );
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return rows.map((r) => ({
      message: {
        id: r.id,
        queue,
        payload: JSON.parse(r.payload),
        attempt: r.attempts,
        createdAt: r.created_at,
      },
      token,
      visibilityMs: r.visibility_ms,
      retry: { limit: r.retry_limit, delayMs: r.retry_delay_ms, backoff: r.retry_backoff === 1 },
    }));
  }

  async complete(_queue: string, deliveries: readonly Delivery[]): Promise<void> {
    const now = this.clock.now();
    for (const [token, ids] of byToken(deliveries)) {
      await this.#k
        .updateTable(T)
        .set({
          state: "completed",
          finished_at: isoTimestamp(now),
          due_at_ms: now.getTime(),
          lock_token: null,
        })
        .where("id", "in", ids)
        .where("lock_token", "=", token)
        .where("state", "=", "active")
        .execute();
    }
  }

  async fail(_queue: string, d: Delivery, error: string, permanent: boolean): Promise<void> {
    const now = this.clock.now();
    const dead = permanent || d.message.attempt > d.retry.limit;
    const next = dead
      ? { state: "dead" as const, finished_at: isoTimestamp(now), due_at_ms: now.getTime() }
      : {
          state: "queued" as const,
          due_at_ms: now.getTime() + retryDelayAfter(d.message.attempt, d.retry),
        };
    await this.#k
      .updateTable(T)
      .set({ ...next, last_error: error, lock_token: null })
      .where("id", "=", d.message.id)
      .where("lock_token", "=", d.token)
      .where("state", "=", "active")
      .execute();
  }

  async extend(_queue: string, deliveries: readonly Delivery[]): Promise<Set<string>> {
    const nowMs = this.clock.now().getTime();
    const held = new Set<string>();
    for (const [token, ids] of byToken(deliveries)) {
      const rows = await this.#k
        .updateTable(T)
        .set((eb) => ({
          due_at_ms: eb(eb.cast<number>(eb.val(nowMs), "bigint"), "+", eb.ref("visibility_ms")),
        }))
        .where("id", "in", ids)
        .where("lock_token", "=", token)
        .where("state", "=", "active")
        .returning("id")
        .execute();
      for (const r of rows) held.add(r.id);
    }
    return held;
  }

  async release(_queue: string, deliveries: readonly Delivery[]): Promise<void> {
    const nowMs = this.clock.now().getTime();
    for (const [token, ids] of byToken(deliveries)) {
      await this.#k
        .updateTable(T)
        .set((eb) => ({
          state: "queued",
          attempts: eb("attempts", "-", 1),
          due_at_ms: nowMs,
          lock_token: null,
        }))
        .where("id", "in", ids)
        .where("lock_token", "=", token)
        .where("state", "=", "active")
        .execute();
    }
  }

  maintain(queue: string): Promise<void> {
    return this.#inspector.maintain(queue);
  }

  stats(): Promise<QueueStats[]> {
    return this.#inspector.stats();
  }

  getMessage(queue: string, id: string): Promise<QueueMessageInfo | null> {
    return this.#inspector.getMessage(queue, id);
  }

  deadLetters(queue: string, limit: number): Promise<QueueMessageInfo[]> {
    return this.#inspector.deadLetters(queue, limit);
  }

  messages(queue: string, state: ListedState | undefined, limit: number) {
    return this.#inspector.messages(queue, state, limit);
  }

  async deleteMessages(queue: string, ids: readonly string[]): Promise<string[]> {
    const deleted: string[] = [];
    for (let i = 0; i < ids.length; i += IDS_CHUNK) {
      const rows = await this.#k
        .deleteFrom(T)
        .where("queue", "=", queue)
        .where("id", "in", ids.slice(i, i + IDS_CHUNK))
        .where("state", "in", ["queued", "dead"])
        .returning("id")
        .execute();
      deleted.push(...rows.map((r) => r.id));
    }
    return deleted;
  }

  async retryDead(queue: string, ids: readonly string[] | "all"): Promise<string[]> {
    const nowMs = this.clock.now().getTime();
    return this.#write(async (k) => {
      const candidates =
        ids === "all"
          ? (
              await k
                .selectFrom(T)
                .select("id")
                .where("queue", "=", queue)
                .where("state", "=", "dead")
                .orderBy("due_at_ms")
                .execute()
            ).map((r) => r.id)
          : ids;
      const moved: string[] = [];
      // One at a time: two dead messages with one singleton key must not both come back.
      for (const id of candidates) {
        const row = await k
          .updateTable(T)
          .set({
            state: "queued",
            attempts: 0,
            due_at_ms: nowMs,
            started_at: null,
            finished_at: null,
            lock_token: null,
          })
          .where("id", "=", id)
          .where("queue", "=", queue)
          .where("state", "=", "dead")
          .where(({ or, eb, not, exists, selectFrom }) =>
            or([
              eb(`${T}.singleton_key`, "is", null),
              not(
                exists(
                  selectFrom(`${T} as live`)
                    .select("live.id")
                    .where("live.queue", "=", queue)
                    .whereRef("live.singleton_key", "=", `${T}.singleton_key`)
                    .where("live.state", "in", ["queued", "active"]),
                ),
              ),
            ]),
          )
          .returning("id")
          .executeTakeFirst();
        if (row) moved.push(row.id);
      }
      return moved;
    });
  }

  /** The database belongs to the runtime: nothing to close here. */
  async close(): Promise<void> {}

  /**
   * A claim is one statement: atomic as it is on Postgres (SKIP LOCKED does the rest); inside
   * `BEGIN IMMEDIATE` on SQLite, so that it waits for the write lock instead of failing.
   */
  #claimStatement<R>(fn: (k: Kysely<QueueTables>) => Promise<R>): Promise<R> {
    return this.#dialect === "postgres" ? fn(this.#k) : this.#write(fn);
  }

  /**
   * Runs writes as one transaction: `BEGIN IMMEDIATE` on SQLite takes the write lock up front
   * (waiting up to busy_timeout for another process), so the claim's read and write can never
   * interleave with another writer; an ordinary transaction on Postgres.
   */
  #write<R>(fn: (k: Kysely<QueueTables>) => Promise<R>): Promise<R> {
    return writeTransaction(this.#k, this.#dialect, fn);
  }
}
