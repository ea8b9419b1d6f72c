// The fetch cycle: empty windows, late events, Mailgun errors and one fetch at a time.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { phasesOf, spread } from "./support/cycle-events.ts";
import {
  eaDb,
  jobRow,
  minutesAgo,
  openEaRuntime,
  recipientRow,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics fetch cycle edges", (h) => {
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
