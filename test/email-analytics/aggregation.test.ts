// Aggregation: email counts, member counts and the open-rate threshold, mid-fetch triggers,
// errors that are logged while the run goes on.
import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import { createFetchRepos } from "../../src/pipelines/email-analytics/repos/fetch-repos.ts";
import { MembersRepo } from "../../src/pipelines/email-analytics/repos/members-repo.ts";
import {
  aggregateEmailStats,
  aggregateMemberStats,
  openRate,
} from "../../src/pipelines/email-analytics/stages/aggregation/aggregate-stats.ts";
import { midFetchAggregationDue } from "../../src/pipelines/email-analytics/stages/fetch/fetch-state.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  eaDb,
  minutesAgo,
  openEaRuntime,
  refuseMemberRecounts,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

describe("aggregation rules", () => {
  it("computes the open rate only from 5 tracked emails on, rounded like Ghost", () => {
    expect(openRate({ emailCount: 4, openedCount: 4, tracked: 4 })).toBeUndefined();
    expect(openRate({ emailCount: 5, openedCount: 2, tracked: 5 })).toBe(40);
    expect(openRate({ emailCount: 7, openedCount: 1, tracked: 6 })).toBe(17);
    expect(openRate({ emailCount: 8, openedCount: 0, tracked: 8 })).toBe(0);
  });

  it("aggregates mid-fetch after 5 minutes or more than 5,000 pending members", () => {
    expect(midFetchAggregationDue(300_000, 0, 10)).toBe(false);
    expect(midFetchAggregationDue(300_001, 0, 10)).toBe(true);
    expect(midFetchAggregationDue(1000, 0, 5000)).toBe(false);
    expect(midFetchAggregationDue(1000, 0, 5001)).toBe(true);
  });
});

describeEachDialect("email-analytics aggregation", (h) => {
  it("member counts, tracked threshold (unchanged below 5) and email counts", async () => {
    const { runtime } = await openEaRuntime(h);
    // 6 emails, the last two without open tracking; 3 members.
    const s = await seedNewsletter(runtime, {
      emails: 6,
      members: 3,
      trackOpens: [true, true, true, true, false, false],
    });
    const db = eaDb(runtime);
    const [m0, m1, m2] = s.members as Array<{ id: string; email: string }>;
    const at = minutesAgo(30).toISOString();
    const open = (emailIdx: number, memberEmail: string) =>
      db
        .updateTable("email_recipients")
        .set({ opened_at: at, delivered_at: at })
        .where("email_id", "=", s.emails[emailIdx]!.id)
        .where("member_email", "=", memberEmail)
        .execute();
    await open(0, m0!.email);
    await open(4, m0!.email);
    await open(0, m1!.email);
    await db.updateTable("members").set({ email_open_rate: 77 }).where("id", "=", m1!.id).execute();
    // Email 5 tracks opens after all and only m2 got it: m2 has 5 tracked emails.
    await db
      .deleteFrom("email_recipients")
      .where("email_id", "=", s.emails[5]!.id)
      .where("member_id", "in", [m0!.id, m1!.id])
      .execute();
    await db
      .updateTable("emails")
      .set({ track_opens: 1 })
      .where("id", "=", s.emails[5]!.id)
      .execute();
    await open(5, m2!.email);
    await db.transaction().execute(async (tx) => {
      await aggregateMemberStats(tx, new MembersRepo(h.dialect), [
        m0!.id,
        m1!.id,
        m2!.id,
        "000000000000000000000000",
      ]);
      await aggregateEmailStats(tx, createFetchRepos(h.dialect), [s.emails[0]!.id], true);
      await aggregateEmailStats(tx, createFetchRepos(h.dialect), [s.emails[4]!.id], false);
    });
    const members = await db
      .selectFrom("members")
      .select(["id", "email_count", "email_opened_count", "email_open_rate"])
      .orderBy("id")
      .execute();
    expect(members.map((m) => [m.email_count, m.email_opened_count, m.email_open_rate])).toEqual([
      [5, 2, null], // 4 tracked: rate left as it was (null)
      [5, 1, 77], // 4 tracked: rate left as it was (77)
      [6, 1, 20], // 5 tracked, 1 opened: 20%
    ]);
    const emails = await db
      .selectFrom("emails")
      .select(["id", "delivered_count", "opened_count", "failed_count"])
      .where("id", "in", [s.emails[0]!.id, s.emails[4]!.id])
      .orderBy("id")
      .execute();
    // Email 4 was aggregated by a fetch without opened events: opened_count not refreshed.
    expect(emails.map((e) => [e.delivered_count, e.opened_count, e.failed_count])).toEqual([
      [2, 2, 0],
      [1, 0, 0],
    ]);
  });

  it("reads and updates 100 members per statement", async () => {
    const { runtime } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 250 });
    const kinds: string[] = [];
    const counter: KyselyPlugin = {
      transformQuery(args) {
        kinds.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await eaDb(runtime)
      .transaction()
      .execute(async (tx) => {
        const counted = await aggregateMemberStats(
          tx.withPlugin(counter) as typeof tx,
          new MembersRepo(h.dialect),
          s.members.map((m) => m.id),
        );
        expect(counted).toBe(250);
      });
    // Every member's email_count goes 0 → 1: three reads and three updates (100, 100, 50).
    expect(kinds.filter((k) => k === "SelectQueryNode")).toHaveLength(3);
    expect(kinds.filter((k) => k === "RawNode")).toHaveLength(3);
  });

  it("aggregates mid-fetch once more than 5,000 members wait", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 5_400 });
    const e = s.emails[0]!.id;
    fake.addEvents(
      s.members.map((m, i) => ({
        event: "delivered",
        timestamp: new Date(minutesAgo(25).getTime() + i * 100),
        recipient: m.email,
        emailId: e,
      })),
    );
    const report = await runFetch(runtime);
    const aggregation = report.summary.aggregation as { mid_fetch: number; members: number };
    expect(aggregation.mid_fetch).toBe(1);
    expect(aggregation.members).toBe(5_400);
    const counted = await eaDb(runtime)
      .selectFrom("members")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("email_count", "=", 1)
      .executeTakeFirstOrThrow();
    expect(Number(counted.n)).toBe(5_400);
  });

  it("logs an aggregation error and goes on: the events stay applied", async () => {
    const { runtime, fake, logs } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 2 });
    const db = eaDb(runtime);
    await refuseMemberRecounts(runtime, h.dialect);
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(10),
      recipient: s.members[0]!.email,
      emailId: s.emails[0]!.id,
    });
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    expect((report.summary.aggregation as { errors: number }).errors).toBeGreaterThan(0);
    expect(logs.some((l) => l.level === "error" && /aggregating stats/.test(l.msg))).toBe(true);
    const r = await db
      .selectFrom("email_recipients")
      .select("delivered_at")
      .where("member_email", "=", s.members[0]!.email)
      .executeTakeFirstOrThrow();
    expect(r.delivered_at).not.toBeNull();
  });
});
