import { expect, it, onTestFinished } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { pgBossWorld } from "../../testing/scheduler/pg-boss-world.ts";
import { describeSchedulerConformance } from "../../testing/scheduler/scheduler-conformance.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { JobService } from "../jobs/job-service.ts";
import { openQueue } from "../queue/open-queue.ts";
import { pgBossOf } from "../queue/pg-boss/pg-boss-of.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Fire } from "./fire.ts";
import { PgBossScheduler, SCHEDULE_QUEUE_PREFIX } from "./pg-boss-scheduler.ts";

async function pgBossQueue(rt: Runtime) {
  const target = rt.config.database;
  if (target.dialect !== "postgres") throw new Error("needs Postgres");
  const queue = await openQueue(
    {
      ...rt,
      config: {
        ...rt.config,
        queue: {
          engine: "pg-boss",
          url: target.url,
          schema: "pgboss",
          maintenanceIntervalSeconds: 30,
        },
      },
    },
    { schedule: false },
  );
  onTestFinished(() => queue.close());
  return queue;
}

describeEachDialect("pg-boss scheduler", (h) => {
  it.skipIf(h.dialect !== "postgres")(
    "keeps pg-boss schedules in step with the jobs and dispatches their fires with jitter",
    async () => {
      const rt = await openTestRuntime(h);
      const queue = await pgBossQueue(rt);
      const boss = pgBossOf(queue);
      expect(boss).toBeDefined();
      const jobs = new JobService(rt.db, rt.registry, rt.clock);
      const spec = { type: "test.echo", params: { message: "m" }, timezone: "UTC", enabled: true };
      await jobs.add({
        ...spec,
        name: "a",
        schedule: "*/5 * * * *",
        timezone: "Asia/Tokyo",
        jitter: 10,
      });
      await jobs.add({ ...spec, name: "b", schedule: null });
      await jobs.add({ ...spec, name: "c", schedule: "0 * * * *", enabled: false });

      const fires: Array<{ fire: Fire; at: number }> = [];
      const scheduler = new PgBossScheduler({
        runtime: rt,
        boss: boss!,
        random: () => 0.5,
        dispatch: async (fire) => {
          fires.push({ fire, at: Date.now() });
          return "queued";
        },
      });
      const schedules = async () =>
        (await boss!.getSchedules())
          .filter((s) => s.name.startsWith(SCHEDULE_QUEUE_PREFIX))
          .map((s) => ({ name: s.name, cron: s.cron, tz: (s as { timezone?: string }).timezone }));

      await scheduler.reload();
      expect(await schedules()).toEqual([
        { name: "tidemark.schedule.a", cron: "*/5 * * * *", tz: "Asia/Tokyo" },
      ]);

      // What pg-boss's timekeeper does at an occurrence: a message on the schedule's queue.
      await boss!.send("tidemark.schedule.a", { job: "a" });
      const deadline = Date.now() + 10_000;
      while (fires.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(fires).toHaveLength(1);
      const [{ fire, at }] = fires as [{ fire: Fire; at: number }];
      expect(fire.job.name).toBe("a");
      // jitter 10 s, random 0.5 → floor(0.5 × 11) = 5 s after the fire.
      expect(fire.fireAt.getTime() - at).toBeGreaterThan(4000);
      expect(fire.fireAt.getTime() - at).toBeLessThanOrEqual(5000);

      await jobs.update("a", { schedule: "0 3 * * *" });
      await jobs.update("c", { enabled: true });
      await scheduler.reload();
      expect(await schedules()).toEqual([
        { name: "tidemark.schedule.a", cron: "0 3 * * *", tz: "Asia/Tokyo" },
        { name: "tidemark.schedule.c", cron: "0 * * * *", tz: "UTC" },
      ]);
      await jobs.remove("a");
      await jobs.update("c", { enabled: false });
      await scheduler.reload();
      expect(await schedules()).toEqual([]);
      await scheduler.stop(1000);
    },
  );
});

describeEachDialect("pg-boss scheduler, shared behaviour", (h) => {
  if (h.dialect !== "postgres") {
    it.skip("the pg-boss scheduler needs Postgres (set TIDEMARK_TEST_PG_URL)", () => {});
    return;
  }
  // Real time: each test waits for pg-boss's timekeeper and pollers (and may wait for a
  // fresh minute), so tests take up to ~40 s.
  describeSchedulerConformance("pg-boss", async () => pgBossWorld(await openTestRuntime(h)), {
    timeoutMs: 90_000,
  });
});
