import { pgBossOf, pgBossQueueCreator } from "../queue/pg-boss/pg-boss-of.ts";
import type { Queue } from "../queue/queue.ts";
import { EmbeddedScheduler } from "./embedded-scheduler.ts";
import { PgBossScheduler } from "./pg-boss-scheduler.ts";
import type { Scheduler, SchedulerOptions } from "./scheduler.ts";

/**
 * The scheduler for the queue's engine: pg-boss's schedules when `queue` is pg-boss (open it
 * with `{ schedule: true }` so its timekeeper runs in this process), else the embedded one.
 */
export function createScheduler(options: SchedulerOptions & { queue: Queue }): Scheduler {
  const { queue, ...rest } = options;
  const boss = pgBossOf(queue);
  const createQueue = pgBossQueueCreator(queue);
  return boss ? new PgBossScheduler({ ...rest, boss, createQueue }) : new EmbeddedScheduler(rest);
}
