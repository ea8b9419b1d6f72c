// A run that dies (or keeps failing to aggregate) after its batches were committed: the next run
// counts what it left, even when Mailgun has nothing new, and counters never inflate.
import { sql } from "kysely";
import { expect, it } from "vitest";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { FETCH_LEASE_KEY } from "../../src/pipelines/email-analytics/params.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  eaDb,
  minutesAgo,
  openEaRuntime,
  refuseMemberRecounts,
  runFetch,
  type Seeded,
  seedNewsletter,
} from "./support/job-harness.ts";

/**
 * Makes the run lose its lease right after the first commit that set an `opened_at`: as if the
 * process was killed between a batch's commit and the aggregation that follows it.
 */
function dieAfterFirstBatch(runtime: Runtime): void {
  const leases = runtime.leases;
  const commit = leases.fencedCommit.bind(leases);
  let died = false;
  leases.fencedCommit = async (lease, ttlMs, effect) => {
    const out = await commit(lease, ttlMs, effect);
    const applied = await eaDb(runtime)
      .selectFrom("email_recipients")
      .select("id")
      .where("opened_at", "is not", null)
      .executeTakeFirst();
    if (!died && applied) {
      died = true;
      await leases.release(lease.key, lease.holder);
      await leases.tryAcquire(lease.key, "intruder", 60_000);
    }
    return out;
  };
}

/** [opened_count, delivered_count] of each email, and [email_count, email_opened_count] of each member. */
async function counters(runtime: Runtime) {
  const db = eaDb(runtime);
  const emails = await db
    .selectFrom("emails")
    .select(["opened_count", "delivered_count"])
    .orderBy("id")
    .execute();
  const members = await db
    .selectFrom("members")
    .select(["email_count", "email_opened_count"])
    .orderBy("id")
    .execute();
  return {
    emails: emails.map((e) => [e.opened_count, e.delivered_count]),
    members: members.map((m) => [m.email_count, m.email_opened_count]),
  };
}

/** Every member opens email 0; member 0 also opens email 1, last, in a second of its own. */
function opensFor(s: Seeded) {
  const start = minutesAgo(20).getTime();
  const [first, second] = s.emails as [Seeded["emails"][0], Seeded["emails"][0]];
  return [
    ...s.members.map((m, i) => ({
      event: "opened",
      timestamp: new Date(start + i * 2000),
      recipient: m.email,
      emailId: first.id,
    })),
    {
      event: "opened",
      timestamp: new Date(start + 60_000),
      recipient: s.members[0]!.email,
      emailId: second.id,
    },
  ];
}

describeEachDialect("email-analytics crash recovery", (h) => {
  it("a run killed after a batch commit, rerun with nothing new: counters right, not inflated", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { emails: 2, members: 6 });
    fake.addEvents(opensFor(s));
    dieAfterFirstBatch(runtime);
    const crashed = await runFetch(runtime);
    expect(crashed.status).toBe("abandoned");
    // The batch and its watermark are in, the aggregation is not.
    expect((await counters(runtime)).emails).toEqual([
      [0, 0],
      [0, 0],
    ]);
    await runtime.leases.release(FETCH_LEASE_KEY, "intruder");

    const expected = {
      emails: [
        [6, 0],
        [1, 0],
      ],
      members: [[2, 2], ...Array(5).fill([2, 1])],
    };
    const rerun = await runFetch(runtime);
    expect(rerun.status).toBe("succeeded");
    expect(await counters(runtime)).toEqual(expected);
    expect((await runFetch(runtime)).status).toBe("succeeded");
    expect(await counters(runtime)).toEqual(expected);
  });

  it("an aggregation error that lasts a whole run: the next run counts what it left", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { emails: 2, members: 3 });
    const db = eaDb(runtime);
    await refuseMemberRecounts(runtime, h.dialect);
    fake.addEvents(opensFor(s));
    const failing = await runFetch(runtime);
    expect((failing.summary.aggregation as { errors: number }).errors).toBeGreaterThan(0);
    expect((await counters(runtime)).emails).toEqual([
      [0, 0],
      [0, 0],
    ]);
    await sql`drop trigger boom${sql.raw(h.dialect === "postgres" ? " on members" : "")}`.execute(
      db,
    );

    const expected = {
      emails: [
        [3, 0],
        [1, 0],
      ],
      members: [
        [2, 2],
        [2, 1],
        [2, 1],
      ],
    };
    expect((await runFetch(runtime)).status).toBe("succeeded");
    expect(await counters(runtime)).toEqual(expected);
    expect((await runFetch(runtime)).status).toBe("succeeded");
    expect(await counters(runtime)).toEqual(expected);
  });
});
