// An event whose fields have the wrong type fails its page: nothing of it is applied, counted
// `unprocessable` or passed by a watermark.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { phasesOf, spread } from "./support/cycle-events.ts";
import {
  eaDb,
  jobRow,
  minutesAgo,
  openEaRuntime,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics events of the wrong shape", (h) => {
  it("a numeric recipient fails the run naming the field and the request; nothing moves past it", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 6 });
    const e = s.emails[0]!.id;
    const now = Date.now();
    fake.addEvents(
      spread(5, "delivered", e, s.members.slice(0, 5), minutesAgo(20, now), minutesAgo(15, now)),
    );
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(12, now),
      recipient: s.members[5]!.email,
      emailId: e,
      raw: { recipient: 12345 },
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const report = await runFetch(runtime);
      expect(report.status).toBe("failed");
      expect(report.error).toContain("items[5].recipient: expected a string, got number");
      expect(report.error).toContain(`GET ${fake.url}/v3/mg.example.com/events?`);
      expect(report.summary.counts).toMatchObject({ delivered: 0, unprocessable: 0 });
      expect(phasesOf(report.summary).find((p) => p.phase === "others")).toMatchObject({
        events: 0,
      });
      // The page was not applied, so the phase's position stays before it.
      const row = await jobRow(runtime, "email-analytics-latest-others");
      expect(row?.status).toBe("failed");
      expect(row?.finished_at ?? null).toBeNull();
    }
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select("delivered_count")
      .executeTakeFirstOrThrow();
    expect(email.delivered_count).toBe(0);
  });
});
