import { expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { JobService } from "../jobs/job-service.ts";
import { runDue } from "./run-due.ts";

describeEachDialect("run-due", (h) => {
  it("runs each enabled job once per schedule occurrence since its last start", async () => {
    const clock = new ManualClock("2026-05-01T09:58:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const jobs = new JobService(rt.db, rt.registry, clock);
    const base = { type: "test.echo", timezone: "UTC", enabled: true };
    await jobs.add({ ...base, name: "every5", params: { message: "a" }, schedule: "*/5 * * * *" });
    await jobs.add({ ...base, name: "hourly", params: { message: "b" }, schedule: "0 * * * *" });
    await jobs.add({ ...base, name: "manual", params: { message: "c" }, schedule: null });
    await jobs.add({
      ...base,
      name: "off",
      params: { message: "d" },
      schedule: "* * * * *",
      enabled: false,
    });

    expect(await runDue(rt)).toEqual([]); // nothing has occurred since creation at 09:58

    clock.set("2026-05-01T10:00:30.000Z");
    const first = await runDue(rt);
    expect(first.map((o) => [o.job, o.outcome])).toEqual([
      ["every5", "ran"],
      ["hourly", "ran"],
    ]);

    clock.set("2026-05-01T10:04:00.000Z");
    expect(await runDue(rt)).toEqual([]);

    clock.set("2026-05-01T10:12:00.000Z"); // 10:05 and 10:10 were missed: one catch-up run
    expect((await runDue(rt)).map((o) => o.job)).toEqual(["every5"]);
  });

  it("reports a failing job and still runs the others", async () => {
    const clock = new ManualClock("2026-05-01T09:59:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const jobs = new JobService(rt.db, rt.registry, clock);
    const base = { type: "test.echo", timezone: "UTC", enabled: true, schedule: "0 10 * * *" };
    await jobs.add({ ...base, name: "a-bad", params: { message: "x", fail: true } });
    await jobs.add({ ...base, name: "b-good", params: { message: "y" } });
    clock.set("2026-05-01T10:00:01.000Z");
    const out = await runDue(rt, { dryRun: true });
    expect(
      out.map((o) => (o.outcome === "ran" ? [o.job, o.report.status] : [o.job, o.outcome])),
    ).toEqual([
      ["a-bad", "failed"],
      ["b-good", "succeeded"],
    ]);
  });

  it("honours the job's time zone", async () => {
    const clock = new ManualClock("2026-05-01T14:30:00.000Z"); // 23:30 in Tokyo
    const rt = await openTestRuntime(h, { clock });
    const jobs = new JobService(rt.db, rt.registry, clock);
    await jobs.add({
      name: "tokyo-midnight",
      type: "test.echo",
      params: { message: "x" },
      schedule: "0 0 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
    });
    clock.set("2026-05-01T14:59:00.000Z");
    expect(await runDue(rt)).toEqual([]);
    clock.set("2026-05-01T15:00:00.000Z"); // 00:00 JST
    expect((await runDue(rt)).map((o) => o.job)).toEqual(["tokyo-midnight"]);
  });
});
