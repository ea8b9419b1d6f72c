// More events on one timestamp than a cycle's budget: the run must end, not re-read them forever.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { phasesOf } from "./support/cycle-events.ts";
import {
  eaDb,
  minutesAgo,
  openEaRuntime,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describeEachDialect("email-analytics crowd on one timestamp", (h) => {
  it("reads 10,050 opens sharing one timestamp and ends, instead of restarting on them forever", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 30 });
    const e = s.emails[0]!.id;
    const at = minutesAgo(10);
    fake.addEvents(
      Array.from({ length: 10_050 }, (_, i) => ({
        event: "opened",
        timestamp: at,
        recipient: s.members[i % s.members.length]!.email,
        emailId: e,
      })),
    );
    // The cap only bounds the test if the run never ends: unfixed, it re-reads the crowd until
    // it has read 60,000 events.
    const report = await runFetch(runtime, { max_events: 60_000 });
    expect(report.status).toBe("succeeded");
    // Once to the budget, once through to the end of the crowd; then past it.
    expect(report.summary.events).toBe(10_050 * 2);
    const opened = phasesOf(report.summary).filter((p) => p.phase === "opened");
    expect(opened.at(-1)).toMatchObject({ events: 0 });
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select("opened_count")
      .executeTakeFirstOrThrow();
    expect(email.opened_count).toBe(30);
  }, 120_000);
});
