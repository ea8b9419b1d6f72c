import type PgBoss from "pg-boss";
import { DriverQueue } from "../driver-queue.ts";
import type { Queue } from "../queue.ts";
import { PgBossDriver } from "./pg-boss-driver.ts";

/**
 * The pg-boss instance behind a pg-boss Queue (for what only pg-boss offers, e.g. the
 * scheduler's `boss.schedule()`; open the queue with `{ schedule: true }` for its cron
 * timekeeper), or undefined for the embedded engine.
 */
export function pgBossOf(queue: Queue): PgBoss | undefined {
  return queue instanceof DriverQueue && queue.driver instanceof PgBossDriver
    ? queue.driver.boss
    : undefined;
}

/** Creates a pg-boss queue unless it exists, serialised across processes (see createQueueOnce). */
export function pgBossQueueCreator(queue: Queue): ((name: string) => Promise<void>) | undefined {
  return queue instanceof DriverQueue && queue.driver instanceof PgBossDriver
    ? (name) => (queue.driver as PgBossDriver).ensurePlainQueue(name)
    : undefined;
}
