import type { Pool } from "pg";
import type PgBoss from "pg-boss";

/** One advisory lock key for every queue creation of every Tidemark process on a database. */
const CREATE_QUEUE_LOCK = "tidemark:pg-boss:create-queue";

/**
 * Creates a pg-boss queue unless it exists, serialised across processes by a transaction-level
 * advisory lock: pg-boss's createQueue runs DDL (a partition, indexes) that deadlocks when
 * several processes create queues at once on a fresh database. The lock is held by a dedicated
 * connection while pg-boss works on its own; it is released when that transaction ends.
 */
export function createQueueOnce(
  pool: Pool,
  boss: PgBoss,
  name: string,
  options?: Omit<PgBoss.Queue, "name">,
): Promise<void> {
  // One creation at a time in this process too: a waiting creation must not hold a second
  // connection of the pool that the lock holder's pg-boss needs.
  const previous = inProcess.get(pool) ?? Promise.resolve();
  const next = previous.then(() => createLocked(pool, boss, name, options));
  inProcess.set(
    pool,
    next.catch(() => undefined),
  );
  return next;
}

/** The tail of this process's creations, per pool. */
const inProcess = new WeakMap<Pool, Promise<unknown>>();

async function createLocked(
  pool: Pool,
  boss: PgBoss,
  name: string,
  options?: Omit<PgBoss.Queue, "name">,
): Promise<void> {
  if (await boss.getQueue(name)) return;
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(hashtextextended($1, 0))", [
      CREATE_QUEUE_LOCK,
    ]);
    if (!(await boss.getQueue(name))) await boss.createQueue(name, { name, ...options });
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
