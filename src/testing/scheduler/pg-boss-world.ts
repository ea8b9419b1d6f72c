import { setTimeout as sleep } from "node:timers/promises";
import { onTestFinished } from "vitest";
import { openQueue } from "../../engine/queue/open-queue.ts";
import { pgBossOf } from "../../engine/queue/pg-boss/pg-boss-of.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { createScheduler } from "../../engine/scheduler/create-scheduler.ts";
import { SCHEDULE_QUEUE_PREFIX } from "../../engine/scheduler/pg-boss-scheduler.ts";
import type { Scheduler } from "../../engine/scheduler/scheduler.ts";
import { waitFor } from "../queue/wait-for.ts";
import {
  minuteOf,
  type RecordedFire,
  recordingDispatcher,
  type SchedulerWorld,
} from "./scheduler-world.ts";

const SCHEMA = "pgboss";
/** pg-boss's internal queue through which its timekeeper sends a schedule's message. */
const SEND_IT = "__pgboss__send-it";
/** letCome() needs this much of the minute left: a cron pass plus two pollers' delays. */
const MINUTE_LEFT_MS = 25_000;

/**
 * The pg-boss scheduler's world, on the real clock: each instance has its own pg-boss (as a
 * `serve` process would); a minute comes by starting two pg-boss timekeepers, as two `serve`
 * processes' would be, and waiting until the messages they send are consumed. Everything
 * between — which timekeeper wins the pass, the once-a-minute singleton, the workers —
 * is pg-boss's own.
 */
export async function pgBossWorld(runtime: Runtime): Promise<SchedulerWorld> {
  const target = runtime.config.database;
  if (target.dialect !== "postgres") throw new Error("the pg-boss scheduler needs Postgres");
  const open = (schedule: boolean) =>
    openQueue(
      {
        ...runtime,
        config: {
          ...runtime.config,
          queue: {
            engine: "pg-boss",
            url: target.url,
            schema: SCHEMA,
            maintenanceIntervalSeconds: 30,
          },
        },
      },
      { schedule },
    );
  const { default: pg } = await import("pg");
  const sql = new pg.Client({ connectionString: target.url });
  await sql.connect();
  const instances: Array<{ scheduler: Scheduler; queue: Queue }> = [];
  const fires: RecordedFire[] = [];
  onTestFinished(async () => {
    for (const { scheduler, queue } of instances) {
      await scheduler.stop(0);
      await queue.close();
    }
    await sql.end();
  });

  /** Jobs of the send-it and schedule queues not yet completed. */
  const pending = async () => {
    const { rows } = await sql.query<{ n: number }>(
      `select count(*)::int as n from ${SCHEMA}.job
        where (name = $1 or name like $2) and state in ('created', 'retry', 'active')`,
      [SEND_IT, `${SCHEDULE_QUEUE_PREFIX}%`],
    );
    return rows[0]?.n ?? 0;
  };

  return {
    engine: "pg-boss",
    runtime,
    fires,
    async open(options = {}) {
      const queue = await open(false);
      const scheduler = createScheduler({
        runtime,
        queue,
        dispatch: recordingDispatcher(runtime, instances.length, fires),
        settings: runtime.config.scheduler,
        random: options.random,
      });
      instances.push({ scheduler, queue });
      return scheduler;
    },
    async backdated(_ms, write) {
      // pg-boss's timekeeper looks only at the cron and the clock, never at a job's age.
      await write();
    },
    async upcoming() {
      const now = Date.now();
      const next = minuteOf(new Date(now)).getTime() + 60_000;
      if (next - now < MINUTE_LEFT_MS) await sleep(next - now + 100);
      return minuteOf(new Date());
    },
    async letCome() {
      // pg-boss's timekeepers create their send-it queue as they start, and one that loses
      // that race may run the pass before the queue exists (its sends then vanish): have it
      // already, as any installation that ever ran a timekeeper does.
      const boss = instances[0] && pgBossOf(instances[0].queue);
      if (boss && !(await boss.getQueue(SEND_IT))) await boss.createQueue(SEND_IT);
      // A fresh pass: pg-boss lets one timekeeper run per cron interval across processes.
      await sql.query(`update ${SCHEMA}.version set cron_on = null`);
      const timekeepers = await Promise.all([open(true), open(true)]);
      try {
        await waitFor("a timekeeper pass", async () => {
          const { rows } = await sql.query(`select cron_on from ${SCHEMA}.version`);
          return rows[0]?.cron_on != null;
        });
        // The pass inserts its messages right after claiming it.
        await sleep(1_000);
        await waitFor(
          "the schedule messages to be consumed",
          async () => (await pending()) === 0,
          30_000,
          200,
        );
      } finally {
        await Promise.all(timekeepers.map((q) => q.close()));
      }
    },
    offsetMs(fire) {
      // pg-boss learns of an occurrence when its message arrives, and delays the run from then.
      // Dispatch comes a few ms after the offset is applied; `+ 0` turns a rounded -0 into 0.
      const ms = Date.parse(fire.fireAt) - Date.parse(fire.dispatchedAt);
      return Math.round(ms / 1000) * 1000 + 0;
    },
  };
}
