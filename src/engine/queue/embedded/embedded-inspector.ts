import type { Kysely } from "kysely";
import { type Clock, isoTimestamp } from "../../clock/clock.ts";
import type { ListedState, QueueMessageInfo, QueueStats } from "../queue.ts";
import type { EmbeddedQueueOptions } from "./embedded-driver.ts";
import {
  type QueueMessagesTable,
  type QueueTables,
  MESSAGES_TABLE as T,
} from "./embedded-tables.ts";

/** Retention deletes run at most this often per queue and process. */
const PURGE_EVERY_MS = 60_000;
/** Rows deleted per statement, so that a purge never holds SQLite's write lock for long. */
const PURGE_BATCH = 5_000;

function toInfo(row: QueueMessagesTable): QueueMessageInfo {
  return {
    id: row.id,
    queue: row.queue,
    state: row.state,
    payload: JSON.parse(row.payload),
    attempts: row.attempts,
    createdAt: row.created_at,
    lastError: row.last_error,
    nextAttemptAt: row.state === "queued" ? new Date(Number(row.due_at_ms)).toISOString() : null,
  };
}

/** Upkeep and read-only views of the embedded queue table. */
export class EmbeddedInspector {
  readonly #completedRetentionMs: number;
  readonly #deadRetentionMs: number;
  readonly #lastPurge = new Map<string, number>();

  constructor(
    private readonly k: Kysely<QueueTables>,
    private readonly clock: Clock,
    options: EmbeddedQueueOptions,
  ) {
    this.#completedRetentionMs = (options.completedRetentionSeconds ?? 86_400) * 1000;
    this.#deadRetentionMs = (options.deadRetentionSeconds ?? 14 * 86_400) * 1000;
  }

  /**
   * Expired holds (the worker died or stalled): dead-lettered when out of attempts, otherwise
   * deliverable again at once. Then, now and then, deletes messages past their retention.
   */
  async maintain(queue: string): Promise<void> {
    const now = this.clock.now();
    const nowMs = now.getTime();
    const expired = `visibility timeout expired: the worker holding it stopped renewing it`;
    await this.k
      .updateTable(T)
      .set({ state: "dead", finished_at: isoTimestamp(now), last_error: expired, lock_token: null })
      .where("state", "=", "active")
      .where("queue", "=", queue)
      .where("due_at_ms", "<=", nowMs)
      .whereRef("attempts", ">", "retry_limit")
      .execute();
    await this.k
      .updateTable(T)
      .set({ state: "queued", last_error: expired, lock_token: null })
      .where("state", "=", "active")
      .where("queue", "=", queue)
      .where("due_at_ms", "<=", nowMs)
      .execute();
    if (nowMs - (this.#lastPurge.get(queue) ?? 0) >= PURGE_EVERY_MS) {
      this.#lastPurge.set(queue, nowMs);
      await this.#purge(queue, "completed", nowMs - this.#completedRetentionMs);
      await this.#purge(queue, "dead", nowMs - this.#deadRetentionMs);
    }
  }

  async #purge(queue: string, state: "completed" | "dead", beforeMs: number): Promise<void> {
    for (;;) {
      const result = await this.k
        .deleteFrom(T)
        .where("id", "in", (eb) =>
          eb
            .selectFrom(T)
            .select("id")
            .where("state", "=", state)
            .where("queue", "=", queue)
            .where("due_at_ms", "<", beforeMs)
            .limit(PURGE_BATCH),
        )
        .executeTakeFirst();
      if (Number(result.numDeletedRows) < PURGE_BATCH) return;
    }
  }

  /** Counts per queue; a queue with only completed messages is left out. */
  async stats(): Promise<QueueStats[]> {
    const nowMs = this.clock.now().getTime();
    const rows = await this.k
      .selectFrom(T)
      .where("state", "in", ["queued", "active", "dead"])
      .select((eb) => {
        const count = (state: QueueMessagesTable["state"]) =>
          eb.fn.sum<number>(
            eb.case().when("state", "=", state).then(eb.lit(1)).else(eb.lit(0)).end(),
          );
        const deliverable = eb.and([eb("state", "=", "queued"), eb("due_at_ms", "<=", nowMs)]);
        return [
          "queue",
          count("queued").as("queued"),
          count("active").as("active"),
          count("dead").as("dead"),
          eb.fn
            .min<number | null>(eb.case().when(deliverable).then(eb.ref("due_at_ms")).end())
            .as("oldest"),
        ];
      })
      .groupBy("queue")
      .orderBy("queue")
      .execute();
    return rows.map((r) => ({
      queue: r.queue,
      queued: Number(r.queued),
      active: Number(r.active),
      deadLettered: Number(r.dead),
      oldestQueuedAgeSeconds:
        r.oldest === null ? 0 : Math.max(0, (nowMs - Number(r.oldest)) / 1000),
    }));
  }

  async getMessage(queue: string, id: string): Promise<QueueMessageInfo | null> {
    const row = await this.k
      .selectFrom(T)
      .selectAll()
      .where("id", "=", id)
      .where("queue", "=", queue)
      .executeTakeFirst();
    return row ? toInfo(row) : null;
  }

  async deadLetters(queue: string, limit: number): Promise<QueueMessageInfo[]> {
    const rows = await this.k
      .selectFrom(T)
      .selectAll()
      .where("state", "=", "dead")
      .where("queue", "=", queue)
      .orderBy("due_at_ms", "desc")
      .limit(limit)
      .execute();
    return rows.map(toInfo);
  }

  async messages(
    queue: string,
    state: ListedState | undefined,
    limit: number,
  ): Promise<QueueMessageInfo[]> {
    const rows = await this.k
      .selectFrom(T)
      .selectAll()
      .where("queue", "=", queue)
      .where("state", "in", state ? [state] : ["queued", "active", "dead"])
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map(toInfo);
  }
}
