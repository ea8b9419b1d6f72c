// A backfill cancelled and scheduled again while a fetch is reading it: the new range is read whole.
import { expect, it } from "vitest";
import {
  cancelBackfill,
  scheduleBackfill,
} from "../../src/pipelines/email-analytics/commands/schedule-command.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { backfillReading, spread } from "./support/cycle-events.ts";
import {
  eaDb,
  minutesAgo,
  openEaRuntime,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics backfill rescheduled mid-fetch", (h) => {
  it("reads the new range from its own begin, not from where the cancelled one stopped", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 20 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    // Only the wider range holds these deliveries, before everything the first range read.
    fake.addEvents(
      spread(40, "delivered", e, s.members, minutesAgo(850, now), minutesAgo(800, now)),
    );
    fake.addEvents(
      spread(12_000, "opened", e, s.members, minutesAgo(600, now), minutesAgo(500, now)),
    );
    await scheduleBackfill(runtime, {
      begin: minutesAgo(700, now).toISOString(),
      end: minutesAgo(400, now).toISOString(),
    });
    fake.faults.set({ delayMs: 30 });
    const running = runFetch(runtime);
    await backfillReading(fake);
    // The operator widens the range: cancel, then schedule from earlier.
    expect(await cancelBackfill(runtime)).toBe(true);
    await scheduleBackfill(runtime, {
      begin: minutesAgo(900, now).toISOString(),
      end: minutesAgo(400, now).toISOString(),
    });
    expect((await running).status).toBe("succeeded");
    // A later run changes nothing: the backfill was read to its end.
    await runFetch(runtime);
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select(["delivered_count", "opened_count"])
      .executeTakeFirstOrThrow();
    expect(email).toEqual({ delivered_count: 20, opened_count: 20 });
  }, 120_000);
});
