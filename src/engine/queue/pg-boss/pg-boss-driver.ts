import type { Pool, PoolClient } from "pg";
import type PgBoss from "pg-boss";
import { connectFailure, redactDatabaseUrl } from "../../../infra/db/open-database.ts";
import { ConfigError } from "../../../infra/errors.ts";
import type { Logger } from "../../../infra/logging/logger.ts";
import { redactText } from "../../../infra/logging/redact.ts";
import type { ListedState, QueueMessageInfo, QueueStats } from "../queue.ts";
import type { Delivery, OutgoingMessage, QueueDriver } from "../queue-driver.ts";
import { DEFAULT_SEND_OPTIONS } from "../queue-options.ts";
import { createQueueOnce } from "./create-queue-once.ts";
import { isUuid, PG_BOSS_STATES, type PgBossJobRow, toMessageInfo } from "./pg-boss-mapping.ts";
import { pgBossSql } from "./pg-boss-sql.ts";

/** Where and how pg-boss runs (from `pg_boss:` in tidemark.yaml). */
export interface PgBossQueueOptions {
  /** Postgres URL (pg-boss keeps its tables there, in `schema`). */
  url: string;
  /** Postgres schema of pg-boss's tables (default `pgboss`). */
  schema?: string;
  /**
   * How often pg-boss's supervisor runs (across all processes): it returns the jobs of dead
   * workers once their visibility timeout passed, and archives old jobs. Default 30 s.
   */
  maintenanceIntervalSeconds?: number;
  /** Run pg-boss's cron timekeeper in this process (for pg-boss schedules). Default false. */
  schedule?: boolean;
  /** Connections in this process's pool (default 10). */
  poolSize?: number;
  logger: Logger;
}

const INSERT_CHUNK = 1_000;

/** A queue's retry and expiry settings, which pg-boss applies to jobs that name none. */
type QueueDefaults = Required<
  Pick<PgBoss.Queue, "retryLimit" | "retryDelay" | "retryBackoff" | "expireInSeconds">
>;

/** Tidemark's send defaults in pg-boss terms; queues this adapter creates get them. */
const TIDEMARK_DEFAULTS: QueueDefaults = {
  retryLimit: DEFAULT_SEND_OPTIONS.retryLimit,
  retryDelay: DEFAULT_SEND_OPTIONS.retryDelaySeconds,
  retryBackoff: DEFAULT_SEND_OPTIONS.retryBackoff,
  expireInSeconds: DEFAULT_SEND_OPTIONS.visibilityTimeoutSeconds,
};

/**
 * A pg-boss insert row for one message (pg-boss counts delays and timeouts in whole seconds).
 * Settings equal to the queue's own are left out: smaller rows, faster batch inserts.
 */
function toJobInsert(queue: string, m: OutgoingMessage, q: QueueDefaults): PgBoss.JobInsert {
  const o = m.options;
  const retryDelay = Math.ceil(o.retryDelayMs / 1000);
  const expireInSeconds = Math.max(1, Math.ceil(o.visibilityMs / 1000));
  const job: PgBoss.JobInsert = {
    id: m.id,
    name: queue,
    data: (m.payload === undefined ? null : m.payload) as object,
  };
  if (o.retryLimit !== q.retryLimit) job.retryLimit = o.retryLimit;
  if (retryDelay !== q.retryDelay) job.retryDelay = retryDelay;
  if (o.retryBackoff !== q.retryBackoff) job.retryBackoff = o.retryBackoff;
  if (expireInSeconds !== q.expireInSeconds) job.expireInSeconds = expireInSeconds;
  if (o.startAfterMs > 0) job.startAfter = `${o.startAfterMs / 1000} seconds`;
  if (o.singletonKey !== null) job.singletonKey = o.singletonKey;
  return job;
}

/** A row of the adapter's fetch. */
interface FetchedJob {
  id: string;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  createdMs: number;
}

function onConnection(client: PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

/**
 * The pg-boss engine: sends with `insert` (ids made here, so batches return them), consumes
 * with pg-boss's fetch (lean copy, see pg-boss-sql.ts) + `complete`/`fail` under the same
 * worker loop as the embedded engine, and adds in SQL what pg-boss 10 lacks (hold renewal,
 * release, exact singleton dedupe). pg-boss's supervisor expires the holds of dead workers.
 */
export class PgBossDriver implements QueueDriver {
  readonly engine = "pg-boss";
  readonly #queues = new Map<string, Promise<QueueDefaults>>();
  readonly #sql: ReturnType<typeof pgBossSql>;
  readonly #schema: string;

  private constructor(
    /** The pg-boss instance, e.g. for the scheduler's `boss.schedule()`. */
    readonly boss: PgBoss,
    private readonly pool: Pool,
    schema: string,
  ) {
    this.#schema = schema;
    this.#sql = pgBossSql(schema);
  }

  /** Connects, installs or migrates pg-boss's schema, and starts its supervisor. */
  static async open(options: PgBossQueueOptions): Promise<PgBossDriver> {
    const [{ default: PgBossClass }, { default: pg }] = await Promise.all([
      import("pg-boss"),
      import("pg"),
    ]);
    const schema = options.schema ?? "pgboss";
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      application_name: "tidemark-pgboss",
    });
    // A dropped idle connection must not crash the process; the next query reconnects.
    pool.on("error", (err) => options.logger.warn({ err }, "pg-boss connection error"));
    const boss = new PgBossClass({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema,
      migrate: true,
      supervise: true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
      schedule: options.schedule ?? false,
    });
    // pg-boss emits "error" for background failures; without a listener Node would throw.
    boss.on("error", (err) => options.logger.warn({ err }, "pg-boss background error"));
    try {
      await boss.start();
    } catch (err) {
      await pool.end();
      // One line naming the queue's database (password hidden), as for the main database.
      const where = redactDatabaseUrl(options.url);
      throw new ConfigError(`queue pg-boss at ${where}: ${redactText(connectFailure(err))}`, {
        cause: err,
      });
    }
    return new PgBossDriver(boss, pool, schema);
  }

  async insert(queue: string, messages: readonly OutgoingMessage[]): Promise<Set<string>> {
    const defaults = await this.#ensureQueue(queue);
    const keys = [...new Set(messages.flatMap((m) => m.options.singletonKey ?? []))].sort();
    if (keys.length === 0) {
      for (let i = 0; i < messages.length; i += INSERT_CHUNK) {
        const chunk = messages.slice(i, i + INSERT_CHUNK);
        await this.boss.insert(chunk.map((m) => toJobInsert(queue, m, defaults)));
      }
      return new Set(messages.map((m) => m.id));
    }
    // Singleton keys: lock them, skip the live ones, insert the rest, in one transaction.
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(this.#sql.lockKeys, [`${this.#schema}/${queue}/`, keys]);
      const { rows } = await client.query<{ singleton_key: string }>(this.#sql.liveKeys, [
        queue,
        keys,
      ]);
      const taken = new Set(rows.map((r) => r.singleton_key));
      const accepted = messages.filter((m) => {
        const key = m.options.singletonKey;
        if (key === null) return true;
        if (taken.has(key)) return false;
        taken.add(key);
        return true;
      });
      const db = onConnection(client);
      for (let i = 0; i < accepted.length; i += INSERT_CHUNK) {
        const chunk = accepted.slice(i, i + INSERT_CHUNK);
        await this.boss.insert(
          chunk.map((m) => toJobInsert(queue, m, defaults)),
          { db },
        );
      }
      await client.query("COMMIT");
      return new Set(accepted.map((m) => m.id));
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async claim(queue: string, max: number): Promise<Delivery[]> {
    await this.#ensureQueue(queue);
    const { rows } = await this.pool.query<FetchedJob>(this.#sql.fetch, [queue, max]);
    rows.sort((a, b) => a.createdMs - b.createdMs || (a.id < b.id ? -1 : 1));
    return rows.map((j) => ({
      message: {
        id: j.id,
        queue,
        payload: j.data,
        attempt: j.retryCount + 1,
        createdAt: new Date(j.createdMs).toISOString(),
      },
      token: j.id,
      visibilityMs: j.expireInSeconds * 1000,
      retry: { limit: j.retryLimit, delayMs: j.retryDelay * 1000, backoff: j.retryBackoff },
    }));
  }

  async complete(queue: string, deliveries: readonly Delivery[]): Promise<void> {
    await this.boss.complete(
      queue,
      deliveries.map((d) => d.message.id),
    );
  }

  async fail(queue: string, d: Delivery, error: string, permanent: boolean): Promise<void> {
    if (permanent) await this.pool.query(this.#sql.failPermanently, [queue, d.message.id, error]);
    else await this.boss.fail(queue, d.message.id, { message: error });
  }

  async extend(queue: string, deliveries: readonly Delivery[]): Promise<Set<string>> {
    const ids = deliveries.map((d) => d.message.id);
    const { rows } = await this.pool.query<{ id: string }>(this.#sql.extend, [queue, ids]);
    return new Set(rows.map((r) => r.id));
  }

  async release(queue: string, deliveries: readonly Delivery[]): Promise<void> {
    const ids = deliveries.map((d) => d.message.id);
    await this.pool.query(this.#sql.release, [queue, ids]);
  }

  /** pg-boss's supervisor expires dead workers' jobs and archives old ones. */
  async maintain(): Promise<void> {}

  async stats(): Promise<QueueStats[]> {
    const { rows } = await this.pool.query<{
      queue: string;
      queued: string;
      active: string;
      dead: string;
      oldest: number;
    }>(this.#sql.stats);
    return rows.map((r) => ({
      queue: r.queue,
      queued: Number(r.queued),
      active: Number(r.active),
      deadLettered: Number(r.dead),
      oldestQueuedAgeSeconds: Math.max(0, r.oldest),
    }));
  }

  async getMessage(queue: string, id: string): Promise<QueueMessageInfo | null> {
    if (!isUuid(id)) return null;
    const job = await this.boss.getJobById<unknown>(queue, id, { includeArchive: true });
    return job ? toMessageInfo(job as unknown as PgBossJobRow) : null;
  }

  async deadLetters(queue: string, limit: number): Promise<QueueMessageInfo[]> {
    const { rows } = await this.pool.query<PgBossJobRow>(this.#sql.deadLetters, [queue, limit]);
    return rows.map(toMessageInfo);
  }

  async messages(
    queue: string,
    state: ListedState | undefined,
    limit: number,
  ): Promise<QueueMessageInfo[]> {
    const states = state ? PG_BOSS_STATES[state] : Object.values(PG_BOSS_STATES).flat();
    const { rows } = await this.pool.query<PgBossJobRow>(this.#sql.messages, [
      queue,
      states,
      limit,
    ]);
    return rows.map(toMessageInfo);
  }

  async deleteMessages(queue: string, ids: readonly string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>(this.#sql.deleteMessages, [
      queue,
      uuids,
    ]);
    return rows.map((r) => r.id);
  }

  async retryDead(queue: string, ids: readonly string[] | "all"): Promise<string[]> {
    const candidates =
      ids === "all"
        ? (await this.pool.query<{ id: string }>(this.#sql.deadIds, [queue])).rows.map((r) => r.id)
        : ids.filter(isUuid);
    const moved: string[] = [];
    // One transaction per job, its singleton key locked as senders lock it (see insert()).
    for (const id of candidates) {
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN");
        const key = (
          await client.query<{ singleton_key: string | null }>(this.#sql.deadKey, [queue, id])
        ).rows[0]?.singleton_key;
        if (key) await client.query(this.#sql.lockKeys, [`${this.#schema}/${queue}/`, [key]]);
        const { rows } = await client.query<{ id: string }>(this.#sql.retryDead, [queue, id]);
        await client.query("COMMIT");
        if (rows.length === 1) moved.push(id);
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    }
    return moved;
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: false });
    await this.pool.end();
  }

  /**
   * pg-boss drops jobs sent to a queue it does not know: create each queue once (with
   * Tidemark's defaults), and read back the settings it has (it may predate this process).
   */
  /** Creates a queue with pg-boss's defaults unless it exists (serialised across processes). */
  ensurePlainQueue(queue: string): Promise<void> {
    return createQueueOnce(this.pool, this.boss, queue);
  }

  #ensureQueue(queue: string): Promise<QueueDefaults> {
    let ready = this.#queues.get(queue);
    if (!ready) {
      ready = (async () => {
        await createQueueOnce(this.pool, this.boss, queue, TIDEMARK_DEFAULTS);
        const q = await this.boss.getQueue(queue);
        if (!q) throw new Error(`pg-boss queue ${queue} could not be created`);
        return {
          retryLimit: q.retryLimit ?? -1,
          retryDelay: q.retryDelay ?? -1,
          retryBackoff: q.retryBackoff ?? !TIDEMARK_DEFAULTS.retryBackoff,
          expireInSeconds: q.expireInSeconds ?? -1,
        };
      })();
      ready.catch(() => this.#queues.delete(queue));
      this.#queues.set(queue, ready);
    }
    return ready;
  }
}
