// Events stamped outside the window a fetch asked for: skipped and counted, never a watermark.
import { expect, it } from "vitest";
import { scheduleBackfill } from "../../src/pipelines/email-analytics/commands/schedule-command.ts";
import {
  emailAnalyticsStatus,
  statusLines,
} from "../../src/pipelines/email-analytics/monitoring/status.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { phasesOf, spread } from "./support/cycle-events.ts";
import {
  eaDb,
  eaServices,
  jobRow,
  minutesAgo,
  openEaRuntime,
  recipientRow,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics events outside the asked window", (h) => {
  it("one event stamped 1e12 in a backfill is skipped and counted; the rest of the range is read", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    const firstTen = s.members.slice(0, 10);
    const lastTen = s.members.slice(10);
    // Page 1: deliveries to ten members; page 2 opens with the far-future event; then opens of
    // everyone and the other ten deliveries, on pages 2 and 3.
    fake.addEvents(
      spread(300, "delivered", e, firstTen, minutesAgo(850, now), minutesAgo(800, now)),
    );
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(700, now),
      recipient: lastTen[0]!.email,
      emailId: e,
      raw: { timestamp: 1e12 },
    });
    fake.addEvents(spread(300, "opened", e, s.members, minutesAgo(600, now), minutesAgo(500, now)));
    fake.addEvents(spread(10, "delivered", e, lastTen, minutesAgo(450, now), minutesAgo(440, now)));
    await scheduleBackfill(runtime, {
      begin: minutesAgo(900, now).toISOString(),
      end: minutesAgo(400, now).toISOString(),
    });
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select(["delivered_count", "opened_count"])
      .executeTakeFirstOrThrow();
    expect(email).toEqual({ delivered_count: 20, opened_count: 20 });
    expect(report.summary.out_of_window).toBe(1);
    const scheduled = phasesOf(report.summary).find((p) => p.phase === "scheduled");
    expect(scheduled).toMatchObject({ events: 610, out_of_window: 1 });
    // The backfill ended because its range was read, at its last real event.
    const row = await jobRow(runtime, "email-analytics-scheduled");
    expect(row?.metadata ?? "").not.toMatch(/"schedule"/);
    expect(new Date(row!.finished_at!).getTime()).toBeLessThan(minutesAgo(400, now).getTime());
    const status = await emailAnalyticsStatus(eaServices(runtime));
    expect(status.out_of_window).toBe(1);
    expect(status.jobs.find((j) => j.name === "email-analytics-scheduled")?.out_of_window).toBe(1);
    expect(statusLines(status).join("\n")).toMatch(
      /email-analytics-scheduled .*last fetch skipped 1 out of window/,
    );
  }, 60_000);

  it("an event stamped in the future inside a backfill reaching past now does not end it", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    fake.addEvents(
      spread(
        599,
        "delivered",
        e,
        s.members.slice(0, 10),
        minutesAgo(600, now),
        minutesAgo(580, now),
      ),
    );
    // The last item of page 2, inside the range but after the moment the fetch starts: a wrong
    // timestamp. Ten members' deliveries follow on page 3.
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(570, now),
      recipient: s.members[10]!.email,
      emailId: e,
      raw: { timestamp: (now + 3 * 86_400_000) / 1000 },
    });
    fake.addEvents(
      spread(10, "delivered", e, s.members.slice(10), minutesAgo(560, now), minutesAgo(540, now)),
    );
    await scheduleBackfill(runtime, {
      begin: minutesAgo(700, now).toISOString(),
      end: new Date(now + 7 * 86_400_000).toISOString(),
    });
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select("delivered_count")
      .executeTakeFirstOrThrow();
    expect(email.delivered_count).toBe(20);
  }, 60_000);

  it("an event stamped before the phase's watermark is skipped and never moves it back", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 6 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    fake.addEvents(
      spread(3, "delivered", e, s.members.slice(0, 3), minutesAgo(20, now), minutesAgo(10, now)),
    );
    expect((await runFetch(runtime)).status).toBe("succeeded");
    // The phase's position after its last event, so the next window holds no event before it.
    const before = minutesAgo(9, now).toISOString();
    await eaDb(runtime)
      .updateTable("jobs")
      .set({ finished_at: before })
      .where("name", "=", "email-analytics-latest-others")
      .execute();
    // Shows up in the next window, stamped a day before it.
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(5, now),
      recipient: s.members[4]!.email,
      emailId: e,
      raw: { timestamp: (now - 86_400_000) / 1000 },
    });
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    const after = (await jobRow(runtime, "email-analytics-latest-others"))!.finished_at!;
    expect(new Date(after).getTime()).toBeGreaterThanOrEqual(new Date(before).getTime());
    expect((await recipientRow(runtime, e, s.members[4]!.email)).delivered_at).toBeNull();
    expect(report.summary.out_of_window).toBe(1);
  });
});
