// The fetch cycle: budgets, restarts, windows, the missing phase, errors and exclusivity.
import { expect, it } from "vitest";
import type { FakeEventInput } from "../../src/pipelines/email-analytics/fake/fake-types.ts";
import { APPLY_BATCH_EVENTS } from "../../src/pipelines/email-analytics/jobs/fetch-events.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import {
  eaDb,
  jobRow,
  minutesAgo,
  openEaRuntime,
  recipientRow,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

interface Phase {
  cycle: number;
  phase: string;
  budget: number;
  events: number;
  skipped?: string;
  begin?: string;
  end?: string;
}

const phasesOf = (summary: Record<string, unknown>) => summary.phases as Phase[];

/** `n` events of `type` for the seeded members, spread evenly between two times. */
function spread(
  n: number,
  type: string,
  emailId: string,
  members: Array<{ email: string }>,
  from: Date,
  to: Date,
): FakeEventInput[] {
  const step = (to.getTime() - from.getTime()) / n;
  return Array.from({ length: n }, (_, i) => ({
    event: type,
    timestamp: new Date(from.getTime() + i * step),
    recipient: (members[i % members.length] as { email: string }).email,
    emailId,
  }));
}

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
    const until = Date.now() + 30_000;
    while (fake.requests.filter((r) => r.query.event === undefined).length < 3) {
      if (Date.now() > until) throw new Error("the backfill never started");
      await new Promise((r) => setTimeout(r, 20));
    }
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

  it("does not call Mailgun for a window whose end is not after its begin", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    await seedNewsletter(runtime, { members: 1 });
    const future = new Date(Date.now() + 60_000).toISOString();
    await eaDb(runtime)
      .insertInto("jobs")
      .values({
        id: "0000000000000000000000aa",
        name: "email-analytics-latest-opened",
        status: "finished",
        started_at: future,
        finished_at: future,
        created_at: future,
        updated_at: null,
        metadata: null,
        queue_entry: null,
      })
      .execute();
    const report = await runFetch(runtime);
    const phases = phasesOf(report.summary);
    expect(phases[0]).toMatchObject({
      phase: "opened",
      events: 0,
      skipped: "end is not after begin",
    });
    const asked = fake.requests.map((r) => r.query.event);
    expect(asked).not.toContain("opened");
    expect(asked).toContain("delivered OR failed OR unsubscribed OR complained");
  });

  it("picks up late events in the missing phase once they are 30 minutes old", async () => {
    const clock = new ManualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
    const { runtime, fake } = await openEaRuntime(h, { clock });
    const s = await seedNewsletter(runtime, { members: 2 });
    const e = s.emails[0]!.id;
    const [a, b] = s.members as Array<{ email: string }>;
    const t0 = clock.now().getTime();
    fake.addEvent({
      event: "delivered",
      timestamp: new Date(t0 - 5 * 60_000),
      recipient: a!.email,
      emailId: e,
    });
    // Stored late by Mailgun: visible only 10 minutes from now.
    fake.addEvent({
      event: "delivered",
      timestamp: new Date(t0 - 10 * 60_000),
      recipient: b!.email,
      emailId: e,
      visibleAt: new Date(t0 + 10 * 60_000),
    });
    await runFetch(runtime);
    expect((await recipientRow(runtime, e, b!.email)).delivered_at).toBeNull();
    clock.advance(40 * 60_000);
    const report = await runFetch(runtime);
    const missing = phasesOf(report.summary).find((p) => p.phase === "missing");
    expect(missing?.events).toBe(1);
    expect((await recipientRow(runtime, e, b!.email)).delivered_at).not.toBeNull();
  });

  it("skips while no email exists", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const report = await runFetch(runtime);
    expect(report.status).toBe("skipped");
    expect(fake.requests).toHaveLength(0);
  });

  it("ends failed on a Mailgun error, counting the events it applied, with the watermark at the last one; the rerun resumes there", async () => {
    const { runtime, fake, logs } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    const events = spread(900, "opened", e, s.members, minutesAgo(25), minutesAgo(5));
    fake.addEvents(events);
    // Pages 1 and 2 succeed, then Mailgun answers 500 (retries are 1 attempt in this suite).
    fake.faults.set({ statusSequence: [200, 200, { status: 500, body: "{}" }] });
    const report = await runFetch(runtime);
    expect(report.status).toBe("failed");
    expect(report.error).toMatch(/Mailgun/);
    // The failing cycle's 600 applied events count in the run's total, not just in its types.
    expect(report.summary).toMatchObject({ events: 600, processed: 600 });
    expect(logs.some((l) => /Fetch finished: 600 events/.test(l.msg))).toBe(true);
    const row = await jobRow(runtime, "email-analytics-latest-opened");
    expect(row?.status).toBe("failed");
    expect(new Date(row!.finished_at!).toISOString()).toBe(
      (events[599]!.timestamp as Date).toISOString(),
    );
    const again = await runFetch(runtime);
    expect(again.status).toBe("succeeded");
    expect(phasesOf(again.summary)[0]).toMatchObject({ phase: "opened" });
    expect(new Date(phasesOf(again.summary)[0]!.begin!).toISOString()).toBe(
      (events[599]!.timestamp as Date).toISOString(),
    );
    const opened = await eaDb(runtime)
      .selectFrom("emails")
      .select("opened_count")
      .executeTakeFirstOrThrow();
    expect(opened.opened_count).toBe(20);
  });

  it("runs one fetch at a time, whatever the job's name (Ghost's fetching flag)", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 5 });
    fake.addEvents(spread(50, "opened", s.emails[0]!.id, s.members, minutesAgo(25), minutesAgo(5)));
    fake.faults.set({ delayMs: 300 });
    const results = await Promise.allSettled([
      runFetch(runtime, {}, "fetch-a"),
      runFetch(runtime, {}, "fetch-b"),
    ]);
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected).toHaveLength(1);
    expect(String((rejected[0] as PromiseRejectedResult).reason)).toMatch(/already running/);
  });
});
