// The scheduler of `tidemark serve`: one Scheduler interface, two engines (embedded, pg-boss).
export { createScheduler } from "./create-scheduler.ts";
export { inlineDispatcher, queueDispatcher } from "./dispatchers.ts";
export { EmbeddedScheduler, type EmbeddedSchedulerOptions } from "./embedded-scheduler.ts";
export type { Fire, FireDispatcher, FireOutcome } from "./fire.ts";
export {
  PgBossScheduler,
  type PgBossSchedulerOptions,
  SCHEDULE_QUEUE_PREFIX,
} from "./pg-boss-scheduler.ts";
export type { Scheduler, SchedulerOptions } from "./scheduler.ts";
