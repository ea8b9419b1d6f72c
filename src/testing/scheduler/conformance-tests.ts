import { expect, it } from "vitest";
import { JobService } from "../../engine/jobs/job-service.ts";
import { addJob, dailyAt, firedJobs } from "./conformance-jobs.ts";
import type { SchedulerWorld } from "./scheduler-world.ts";

const HOUR = 3_600_000;

/** The behaviour every Scheduler shows; `world` gives each test a fresh one. */
export function schedulerTests(world: () => Promise<SchedulerWorld>, timeoutMs: number): void {
  it(
    "fires each enabled scheduled job once per occurrence across two instances, offset by its jitter",
    async () => {
      const w = await world();
      const occurrence = await w.upcoming();
      await addJob(w, "spread", { jitter: 10 });
      await addJob(w, "plain");
      await addJob(w, "manual", { schedule: null });
      await addJob(w, "off", { enabled: false });
      // floor(0.9999 × (10 + 1)) = 10: the top of the range, whole seconds.
      const a = await w.open({ random: () => 0.9999 });
      const b = await w.open({ random: () => 0.9999 });
      await Promise.all([a.reload(), b.reload()]);
      expect(w.fires).toEqual([]);
      await w.letCome();
      expect(firedJobs(w)).toEqual(["plain", "spread"]);
      for (const fire of w.fires) {
        expect(fire.occurrence).toBe(occurrence.toISOString());
        const offset = fire.job === "spread" ? 10_000 : 0;
        expect(w.offsetMs(fire), fire.job).toBe(offset);
        // Never before its occurrence plus its offset.
        expect(Date.parse(fire.fireAt) - occurrence.getTime()).toBeGreaterThanOrEqual(offset);
      }
    },
    timeoutMs,
  );

  it(
    "evaluates each cron in its job's time zone",
    async () => {
      const w = await world();
      const occurrence = await w.upcoming();
      const tokyo = dailyAt(occurrence, "Asia/Tokyo");
      await addJob(w, "tokyo", { schedule: tokyo, timezone: "Asia/Tokyo" });
      // Tokyo's wall time read in UTC is 9 hours off: not now.
      await addJob(w, "tokyo-expr-in-utc", { schedule: tokyo, timezone: "UTC" });
      await addJob(w, "utc", { schedule: dailyAt(occurrence, "UTC"), timezone: "UTC" });
      await (await w.open()).reload();
      await w.letCome();
      expect(firedJobs(w)).toEqual(["tokyo", "utc"]);
      expect(w.fires.every((f) => f.occurrence === occurrence.toISOString())).toBe(true);
    },
    timeoutMs,
  );

  it(
    "disabled, unscheduled and removed jobs stop firing; a changed schedule is followed",
    async () => {
      const w = await world();
      await w.upcoming();
      for (const name of ["keep", "off", "gone", "unscheduled"]) await addJob(w, name);
      await addJob(w, "moved", { schedule: "0 0 1 1 *" });
      const s = await w.open();
      await s.reload();
      const jobs = new JobService(w.runtime.db, w.runtime.registry, w.runtime.clock);
      await jobs.update("off", { enabled: false });
      await jobs.remove("gone");
      await jobs.update("unscheduled", { schedule: null });
      await jobs.update("moved", { schedule: "* * * * *" });
      await s.reload();
      await w.letCome();
      expect(firedJobs(w)).toEqual(["keep", "moved"]);
    },
    timeoutMs,
  );

  it(
    "an occurrence missed while no scheduler ran is not fired late (misfire: skip)",
    async () => {
      const w = await world();
      const occurrence = await w.upcoming();
      const missed = new Date(occurrence.getTime() - 10 * 60_000);
      await w.backdated(HOUR, () => addJob(w, "missed", { schedule: dailyAt(missed, "UTC") }));
      await addJob(w, "control");
      await (await w.open()).reload();
      await w.letCome();
      expect(firedJobs(w)).toEqual(["control"]);
    },
    timeoutMs,
  );

  it(
    "start() and stop() resolve, and a stopped instance fires nothing more",
    async () => {
      const w = await world();
      await w.upcoming();
      await addJob(w, "j");
      const stopped = await w.open();
      await stopped.start();
      await stopped.stop(0);
      const running = await w.open();
      await running.start();
      await w.letCome();
      expect(w.fires.map((f) => [f.instance, f.job])).toEqual([[1, "j"]]);
      await running.stop(0);
    },
    timeoutMs,
  );
}
