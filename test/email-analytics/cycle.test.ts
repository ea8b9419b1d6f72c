// The fetch cycle: budgets, restarts and the backfill (windows, errors, exclusivity: cycle-edges).
import { expect, it } from "vitest";
import { APPLY_BATCH_EVENTS } from "../../src/pipelines/email-analytics/stages/fetch/fetch-events.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { backfillReading, phasesOf, spread } from "./support/cycle-events.ts";
import {
  eaDb,
  jobRow,
  minutesAgo,
  openEaRuntime,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics fetch cycle", (h) => {
  it("budgets: opened 3, others 5, missing 7 → 10000, 9997, 9992, then the backfill is skipped", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 10 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    fake.addEvents(spread(7, "delivered", e, s.members, minutesAgo(90, now), minutesAgo(60, now)));
    fake.addEvents(spread(3, "opened", e, s.members, minutesAgo(20, now), minutesAgo(10, now)));
    fake.addEvents(
      spread(5, "failed", e, s.members.slice(7), minutesAgo(20, now), minutesAgo(10, now)),
    );
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    const phases = phasesOf(report.summary);
    expect(phases.map((p) => [p.phase, p.budget, p.events])).toEqual([
      ["opened", 10000, 3],
      ["others", 9997, 5],
      ["missing", 9992, 7],
      ["scheduled", 9985, 0],
    ]);
    expect(phases[3]!.skipped).toBe("nothing scheduled");
    expect(report.summary.cycles).toBe(1);
    expect(report.summary.restarts).toEqual([]);
    // The job rows: started_at = each window's begin, finished_at = its last event.
    const opened = await jobRow(runtime, "email-analytics-latest-opened");
    expect(opened?.status).toBe("finished");
    expect(new Date(opened!.started_at!).getTime()).toBeCloseTo(now - 30 * 60_000, -4);
    expect(new Date(opened!.finished_at!).toISOString()).toBe(
      spread(3, "opened", e, s.members, minutesAgo(20, now), minutesAgo(10, now))
        .map((x) => (x.timestamp as Date).toISOString())
        .at(-1),
    );
    const missing = await jobRow(runtime, "email-analytics-missing");
    expect(new Date(missing!.started_at!).getTime()).toBeCloseTo(now - 120 * 60_000, -4);
  });

  it("restarts at once when the opened events use the whole budget, and resumes at the last one", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    fake.addEvents(spread(10_050, "opened", e, s.members, minutesAgo(25), minutesAgo(5)));
    const report = await runFetch(runtime);
    const phases = phasesOf(report.summary);
    expect(report.summary.restarts).toEqual(["high opened event count"]);
    expect(phases[0]).toMatchObject({ cycle: 1, phase: "opened", budget: 10000, events: 10050 });
    // The first cycle ends there; the second starts from the last applied event.
    expect(phases[1]).toMatchObject({ cycle: 2, phase: "opened", events: 1 });
    expect(report.summary.counts).toMatchObject({ opened: 10051 });
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select("opened_count")
      .executeTakeFirstOrThrow();
    expect(email.opened_count).toBe(20);
  });

  it("max_events stops restarting once the run has read that many events", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    fake.addEvents(
      spread(10_050, "opened", s.emails[0]!.id, s.members, minutesAgo(25), minutesAgo(5)),
    );
    const report = await runFetch(runtime, { max_events: 5_000 });
    expect(report.status).toBe("succeeded");
    expect(report.summary.cycles).toBe(1);
    expect(report.summary.events).toBe(10_050);
    // The next run goes on from the last applied event.
    const next = await runFetch(runtime);
    expect(phasesOf(next.summary)[0]).toMatchObject({ phase: "opened", events: 1 });
  });

  it("restarts when the three phases together went over the budget", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    fake.addEvents(spread(10_020, "delivered", e, s.members, minutesAgo(25), minutesAgo(5)));
    const report = await runFetch(runtime);
    const phases = phasesOf(report.summary);
    expect(report.summary.restarts).toEqual(["high event count"]);
    expect(phases.slice(0, 3).map((p) => [p.phase, p.budget, p.events])).toEqual([
      ["opened", 10000, 0],
      ["others", 10000, 10020],
      ["missing", -20, 0],
    ]);
  });

  it("skips the backfill under 300 events of budget; reads it otherwise and restarts after it", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    fake.addEvents(spread(9_750, "opened", e, s.members, minutesAgo(25, now), minutesAgo(5, now)));
    fake.addEvents(
      spread(40, "delivered", e, s.members, minutesAgo(600, now), minutesAgo(500, now)),
    );
    const { scheduleBackfill } = await import(
      "../../src/pipelines/email-analytics/commands/schedule-command.ts"
    );
    await scheduleBackfill(runtime, {
      begin: minutesAgo(700, now).toISOString(),
      end: minutesAgo(400, now).toISOString(),
    });
    const report = await runFetch(runtime);
    const phases = phasesOf(report.summary);
    expect(phases[3]).toMatchObject({ cycle: 1, phase: "scheduled", budget: 250, events: 0 });
    expect(phases[3]!.skipped).toMatch(/less than 300/);
    // No restart was due after cycle 1: the backfill waits for the next run.
    expect(report.summary.cycles).toBe(1);
    const next = await runFetch(runtime);
    const p2 = phasesOf(next.summary);
    expect(p2.find((p) => p.phase === "scheduled" && p.cycle === 1)?.events).toBe(40);
    expect(next.summary.restarts).toEqual(["scheduled backfill"]);
    // Read to its end: the backfill is done and its row says so.
    const row = await jobRow(runtime, "email-analytics-scheduled");
    expect(row?.status).toBe("finished");
    expect(row?.metadata ?? "").not.toMatch(/schedule"/);
    const delivered = await eaDb(runtime)
      .selectFrom("emails")
      .select("delivered_count")
      .executeTakeFirstOrThrow();
    expect(delivered.delivered_count).toBe(20);
  });

  it("schedule --cancel stops a running backfill at its next batch", async () => {
    const { runtime, fake, logs } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const now = Date.now();
    fake.addEvents(
      spread(
        12_000,
        "opened",
        s.emails[0]!.id,
        s.members,
        minutesAgo(600, now),
        minutesAgo(500, now),
      ),
    );
    const { scheduleBackfill, cancelBackfill } = await import(
      "../../src/pipelines/email-analytics/commands/schedule-command.ts"
    );
    await scheduleBackfill(runtime, {
      begin: minutesAgo(700, now).toISOString(),
      end: minutesAgo(400, now).toISOString(),
    });
    fake.faults.set({ delayMs: 30 });
    const running = runFetch(runtime);
    await backfillReading(fake);
    expect(await cancelBackfill(runtime)).toBe(true);
    const report = await running;
    expect(report.status).toBe("succeeded");
    const scheduled = phasesOf(report.summary).filter((p) => p.phase === "scheduled");
    // The first batch: whole pages of 300 up to APPLY_BATCH_EVENTS (10 pages).
    expect(scheduled[0]!.events).toBe(Math.ceil(APPLY_BATCH_EVENTS / 300) * 300);
    expect(scheduled.slice(1).every((p) => p.events === 0)).toBe(true);
    expect(logs.some((l) => /Canceled fetching/.test(l.msg))).toBe(true);
    const row = await jobRow(runtime, "email-analytics-scheduled");
    expect(row?.metadata ?? "").not.toMatch(/"schedule"/);
  });
});
