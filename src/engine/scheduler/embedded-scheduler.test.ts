import { expect, it } from "vitest";
import type { SchedulerSettings } from "../../infra/config/load-config.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { embeddedWorld } from "../../testing/scheduler/embedded-world.ts";
import { describeSchedulerConformance } from "../../testing/scheduler/scheduler-conformance.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { JobService } from "../jobs/job-service.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { inlineDispatcher } from "./dispatchers.ts";
import { EmbeddedScheduler } from "./embedded-scheduler.ts";
import type { Fire, FireOutcome } from "./fire.ts";

const SETTINGS: SchedulerSettings = { misfire: "skip", misfireGraceMs: 60_000, reloadMs: 30_000 };

async function addJob(rt: Runtime, name: string, over: Record<string, unknown> = {}) {
  return new JobService(rt.db, rt.registry, rt.clock).add({
    name,
    type: "test.echo",
    params: { message: name },
    schedule: "*/5 * * * *",
    timezone: "UTC",
    enabled: true,
    ...over,
  });
}

/** A scheduler whose fires are only recorded. */
function recording(rt: Runtime, over: Partial<SchedulerSettings> = {}, random?: () => number) {
  const fires: Array<{ job: string; occurrence: string; fireAt: string; kind: string }> = [];
  const outcomes: Array<[string, FireOutcome]> = [];
  const scheduler = new EmbeddedScheduler({
    runtime: rt,
    settings: { ...SETTINGS, ...over },
    random,
    dispatch: async (fire: Fire) => {
      fires.push({
        job: fire.job.name,
        occurrence: fire.occurrence.toISOString(),
        fireAt: fire.fireAt.toISOString(),
        kind: fire.kind,
      });
      return "queued";
    },
    onOutcome: (fire, outcome) => outcomes.push([fire.job.name, outcome]),
  });
  const step = async () => {
    await scheduler.tick();
    await scheduler.settle();
  };
  return { scheduler, fires, outcomes, step };
}

describeEachDialect("scheduler", (h) => {
  it("fires each occurrence once, in the job's time zone", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "tokyo", { schedule: "0 3 * * *", timezone: "Asia/Tokyo" });
    const s = recording(rt);
    await s.scheduler.reload();
    expect(s.scheduler.nextFires()).toEqual([{ job: "tokyo", fireAt: "2026-01-15T18:00:00.000Z" }]);
    clock.set("2026-01-15T17:59:59.999Z");
    await s.step();
    expect(s.fires).toEqual([]);
    clock.set("2026-01-15T18:00:00.000Z");
    await s.step();
    await s.step();
    expect(s.fires).toEqual([
      {
        job: "tokyo",
        occurrence: "2026-01-15T18:00:00.000Z",
        fireAt: "2026-01-15T18:00:00.000Z",
        kind: "on-time",
      },
    ]);
    expect(s.scheduler.nextFires()).toEqual([{ job: "tokyo", fireAt: "2026-01-16T18:00:00.000Z" }]);
  });

  it("adds a per-process jitter drawn once, and draws again when the setting changes", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "spread", { jitter: 120 });
    const a = recording(rt, {}, () => 0.5);
    const b = recording(rt, {}, () => 0.25);
    await a.scheduler.reload();
    await b.scheduler.reload();
    // Occurrence 09:35; offsets floor(0.5 × 121) = 60 s and floor(0.25 × 121) = 30 s.
    expect(a.scheduler.nextFires()).toEqual([
      { job: "spread", fireAt: "2026-01-15T09:36:00.000Z" },
    ]);
    expect(b.scheduler.nextFires()).toEqual([
      { job: "spread", fireAt: "2026-01-15T09:35:30.000Z" },
    ]);
    clock.set("2026-01-15T09:35:59.000Z");
    await a.step();
    expect(a.fires).toEqual([]);
    clock.set("2026-01-15T09:36:00.000Z");
    await a.step();
    expect(a.fires).toMatchObject([
      { occurrence: "2026-01-15T09:35:00.000Z", fireAt: "2026-01-15T09:36:00.000Z" },
    ]);
    await a.scheduler.reload();
    expect(a.scheduler.nextFires()[0]?.fireAt).toBe("2026-01-15T09:41:00.000Z");
    await new JobService(rt.db, rt.registry, clock).update("spread", { jitter: 0 });
    await a.scheduler.reload();
    expect(a.scheduler.nextFires()[0]?.fireAt).toBe("2026-01-15T09:40:00.000Z");
  });

  it("misfire policy skip: occurrences missed while down are skipped; late within grace still fires", async () => {
    const clock = new ManualClock("2026-01-15T09:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "j");
    clock.set("2026-01-15T12:02:00.000Z"); // down for hours: last occurrence 12:00, 2 min ago
    const s = recording(rt);
    await s.scheduler.reload();
    await s.step();
    expect(s.fires).toEqual([]);
    expect(s.outcomes).toEqual([["j", "skipped-misfire"]]);
    expect(s.scheduler.nextFires()).toEqual([{ job: "j", fireAt: "2026-01-15T12:05:00.000Z" }]);

    // A restart 30 s after an occurrence is within the 60 s grace: it fires, late.
    clock.set("2026-01-15T12:05:30.000Z");
    const restarted = recording(rt);
    await restarted.scheduler.reload();
    await restarted.step();
    expect(restarted.fires).toMatchObject([
      { occurrence: "2026-01-15T12:05:00.000Z", kind: "on-time" },
    ]);
  });

  it("misfire policy run_once: many missed occurrences run once, then the schedule resumes", async () => {
    const clock = new ManualClock("2026-01-15T09:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "j");
    clock.set("2026-01-15T12:02:00.000Z");
    const s = recording(rt, { misfire: "run_once" });
    await s.scheduler.reload();
    await s.step();
    await s.step();
    expect(s.fires).toEqual([
      {
        job: "j",
        occurrence: "2026-01-15T12:00:00.000Z",
        fireAt: "2026-01-15T12:00:00.000Z",
        kind: "misfire",
      },
    ]);
    // The catch-up is remembered: a second scheduler does not run it again.
    const other = recording(rt, { misfire: "run_once" });
    await other.scheduler.reload();
    await other.step();
    expect(other.fires).toEqual([]);
    clock.set("2026-01-15T12:05:00.000Z");
    await s.step();
    expect(s.fires.map((f) => f.occurrence)).toEqual([
      "2026-01-15T12:00:00.000Z",
      "2026-01-15T12:05:00.000Z",
    ]);
    // After a stall (e.g. a suspended VM) missed occurrences coalesce into the latest one.
    clock.set("2026-01-15T12:31:00.000Z");
    await s.step();
    expect(s.fires.at(-1)).toMatchObject({
      occurrence: "2026-01-15T12:30:00.000Z",
      kind: "on-time",
    });
    expect(s.fires).toHaveLength(3);
  });

  it("two schedulers on one database fire each occurrence once", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "j", { schedule: "*/10 * * * * *" });
    const a = recording(rt);
    const b = recording(rt);
    await Promise.all([a.scheduler.reload(), b.scheduler.reload()]);
    for (let i = 0; i < 6; i++) {
      clock.advance(10_000);
      await Promise.all([a.step(), b.step()]);
    }
    const all = [...a.fires, ...b.fires].map((f) => f.occurrence).sort();
    expect(all).toHaveLength(6);
    expect(new Set(all).size).toBe(6);
    expect([...a.outcomes, ...b.outcomes].filter(([, o]) => o === "skipped-claimed")).toHaveLength(
      6,
    );
  });

  it("picks up jobs added, changed, disabled and removed while running", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const jobs = new JobService(rt.db, rt.registry, clock);
    const s = recording(rt);
    await s.scheduler.reload();
    expect(s.scheduler.nextFires()).toEqual([]);
    await addJob(rt, "a");
    await addJob(rt, "b", { schedule: null });
    await s.scheduler.reload();
    expect(s.scheduler.nextFires()).toEqual([{ job: "a", fireAt: "2026-01-15T09:35:00.000Z" }]);
    clock.advance(1000);
    await jobs.update("a", { schedule: "0 * * * *" });
    await jobs.update("b", { schedule: "*/2 * * * *" });
    await s.scheduler.reload();
    expect(s.scheduler.nextFires()).toEqual([
      { job: "a", fireAt: "2026-01-15T10:00:00.000Z" },
      { job: "b", fireAt: "2026-01-15T09:32:00.000Z" },
    ]);
    await jobs.update("a", { enabled: false });
    await jobs.remove("b");
    await s.scheduler.reload();
    expect(s.scheduler.nextFires()).toEqual([]);
  });

  it("never overlaps a job with itself: a fire while it runs is skipped", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "slow", { schedule: "* * * * * *", params: { message: "m", sleep_ms: 400 } });
    const outcomes: FireOutcome[] = [];
    const scheduler = new EmbeddedScheduler({
      runtime: rt,
      settings: SETTINGS,
      dispatch: inlineDispatcher(rt),
      onOutcome: (_f, o) => outcomes.push(o),
    });
    await scheduler.reload();
    clock.advance(1000);
    await scheduler.tick(); // starts the 400 ms run
    clock.advance(1000);
    await scheduler.tick(); // still running here
    await scheduler.settle();
    expect(outcomes).toEqual(["skipped-running", "ran"]);

    // Held by another process (its lease): skipped too, and nothing is recorded.
    await rt.leases.tryAcquire("job:slow", "someone-else", 60_000);
    clock.advance(1000);
    await scheduler.tick();
    await scheduler.settle();
    expect(outcomes.at(-1)).toBe("skipped-running");
    expect(await new RunRepo(rt.db).list({ jobName: "slow" })).toHaveLength(1);
  });
});

describeEachDialect("scheduler loop", (h) => {
  it("runs a seconds-level cron on the real clock and stops cleanly", async () => {
    const rt = await openTestRuntime(h);
    await addJob(rt, "tick", { schedule: "* * * * * *" });
    const scheduler = new EmbeddedScheduler({
      runtime: rt,
      settings: { ...SETTINGS, reloadMs: 200 },
      dispatch: inlineDispatcher(rt),
    });
    await scheduler.start();
    await new Promise((r) => setTimeout(r, 2600));
    await scheduler.stop(5000);
    const runs = await new RunRepo(rt.db).list({ jobName: "tick" });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeLessThanOrEqual(3);
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const count = runs.length;
    await new Promise((r) => setTimeout(r, 1100));
    expect(await new RunRepo(rt.db).list({ jobName: "tick" })).toHaveLength(count);
  });
});

describeEachDialect("embedded scheduler", (h) => {
  describeSchedulerConformance("embedded", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    return embeddedWorld(await openTestRuntime(h, { clock }), clock);
  });

  it("a stopped scheduler does not start again and ticks fire nothing", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await addJob(rt, "j");
    const s = recording(rt);
    await s.scheduler.reload();
    await s.scheduler.stop(0);
    await s.scheduler.start();
    clock.set("2026-01-15T09:35:00.000Z");
    await s.step();
    expect(s.fires).toEqual([]);
  });
});
