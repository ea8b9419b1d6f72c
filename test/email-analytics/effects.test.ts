// Effects and counters of every Mailgun event type, through the fetch job against the fake.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  eaDb,
  minutesAgo,
  openEaRuntime,
  recipientRow,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

const iso = (v: string | null | undefined) => (v ? new Date(v).toISOString() : null);

describeEachDialect("email-analytics event effects", (h) => {
  it("delivered and opened set their timestamp once and count every event", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 2 });
    const e = s.emails[0]!;
    const [m0, m1] = s.members as [{ email: string; id: string }, { email: string; id: string }];
    const now = Date.now();
    fake.addEvents([
      { event: "delivered", timestamp: minutesAgo(20, now), recipient: m0.email, emailId: e.id },
      { event: "delivered", timestamp: minutesAgo(19, now), recipient: m0.email, emailId: e.id },
      { event: "opened", timestamp: minutesAgo(15, now), recipient: m0.email, emailId: e.id },
      { event: "opened", timestamp: minutesAgo(14, now), recipient: m0.email, emailId: e.id },
      { event: "delivered", timestamp: minutesAgo(18, now), recipient: m1.email, emailId: e.id },
    ]);
    const report = await runFetch(runtime);
    expect(report.status).toBe("succeeded");
    expect(report.summary.counts).toMatchObject({ delivered: 3, opened: 2, unprocessable: 0 });
    const r0 = await recipientRow(runtime, e.id, m0.email);
    expect(iso(r0.delivered_at)).toBe(minutesAgo(20, now).toISOString());
    expect(iso(r0.opened_at)).toBe(minutesAgo(15, now).toISOString());
    expect(r0.failed_at).toBeNull();
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .selectAll()
      .where("id", "=", e.id)
      .executeTakeFirstOrThrow();
    expect([email.delivered_count, email.opened_count, email.failed_count]).toEqual([2, 1, 0]);
    const member = await eaDb(runtime)
      .selectFrom("members")
      .selectAll()
      .where("id", "=", m0.id)
      .executeTakeFirstOrThrow();
    expect([member.email_count, member.email_opened_count]).toEqual([1, 1]);
    // Fewer than 5 tracked emails: the open rate stays as it was.
    expect(member.email_open_rate).toBeNull();
    // last_seen_at: the first open of the day.
    expect(iso(member.last_seen_at)).toBe(minutesAgo(15, now).toISOString());
  });

  it("finds the email by the batch's message id when user-variables has no email id", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 1 });
    const e = s.emails[0]!;
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(10),
      recipient: s.members[0]!.email,
      messageId: e.providerId,
    });
    const report = await runFetch(runtime);
    expect(report.summary.counts).toMatchObject({ delivered: 1 });
    expect((await recipientRow(runtime, e.id, s.members[0]!.email)).delivered_at).not.toBeNull();
  });

  it("ignores events without message id and email id; counts unknown recipients as unprocessable", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 1 });
    fake.addEvents([
      { event: "delivered", timestamp: minutesAgo(10), recipient: s.members[0]!.email },
      {
        event: "delivered",
        timestamp: minutesAgo(9),
        recipient: "nobody@example.com",
        emailId: s.emails[0]!.id,
      },
      {
        event: "opened",
        timestamp: minutesAgo(9),
        recipient: s.members[0]!.email,
        emailId: "ffffffffffffffffffffffff",
      },
    ]);
    const report = await runFetch(runtime);
    expect(report.summary.counts).toMatchObject({ delivered: 0, opened: 0, unprocessable: 2 });
    expect(
      (await recipientRow(runtime, s.emails[0]!.id, s.members[0]!.email)).delivered_at,
    ).toBeNull();
  });

  it("permanent failures set failed_at and a permanent failure row; temporary ones only the row", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 3 });
    const e = s.emails[0]!;
    const [a, b, c] = s.members as Array<{ email: string; id: string }>;
    const now = Date.now();
    fake.addEvents([
      // a: temporary, then permanent (overwrites), then temporary again (permanent is kept)
      {
        event: "failed",
        timestamp: minutesAgo(20, now),
        recipient: a!.email,
        emailId: e.id,
        failure: "mailbox-full",
      },
      {
        event: "failed",
        timestamp: minutesAgo(19, now),
        recipient: a!.email,
        emailId: e.id,
        failure: "bounce",
      },
      {
        event: "failed",
        timestamp: minutesAgo(18, now),
        recipient: a!.email,
        emailId: e.id,
        failure: "greylisted",
      },
      // b: temporary only; a later temporary overwrites it
      {
        event: "failed",
        timestamp: minutesAgo(17, now),
        recipient: b!.email,
        emailId: e.id,
        failure: "mailbox-full",
      },
      {
        event: "failed",
        timestamp: minutesAgo(16, now),
        recipient: b!.email,
        emailId: e.id,
        failure: "generic-temporary",
      },
      // c: permanent without a message: Ghost's "Error <enhanced code or code>"
      {
        event: "failed",
        timestamp: minutesAgo(15, now),
        recipient: c!.email,
        emailId: e.id,
        severity: "permanent",
        deliveryStatus: { code: 550, message: "", description: "", "enhanced-code": "5.1.1" },
      },
    ]);
    const report = await runFetch(runtime);
    expect(report.summary.counts).toMatchObject({ permanentFailed: 2, temporaryFailed: 4 });
    const failures = await eaDb(runtime)
      .selectFrom("email_recipient_failures")
      .selectAll()
      .orderBy("member_id")
      .execute();
    expect(failures.map((f) => [f.member_id, f.severity, f.code, iso(f.failed_at)])).toEqual([
      [a!.id, "permanent", 550, minutesAgo(19, now).toISOString()],
      [b!.id, "temporary", 421, minutesAgo(16, now).toISOString()],
      [c!.id, "permanent", 550, minutesAgo(15, now).toISOString()],
    ]);
    expect(failures[0]!.message).toMatch(/does not exist/);
    expect(failures[0]!.enhanced_code).toBe("5.1.1");
    // b's generic temporary failure has an empty message and no enhanced code: "Error 421".
    expect(failures[1]!.message).toBe("Error 421");
    expect(failures[2]!.message).toBe("Error 5.1.1");
    expect((await recipientRow(runtime, e.id, a!.email)).failed_at).not.toBeNull();
    expect((await recipientRow(runtime, e.id, b!.email)).failed_at).toBeNull();
    const email = await eaDb(runtime)
      .selectFrom("emails")
      .select(["failed_count"])
      .where("id", "=", e.id)
      .executeTakeFirstOrThrow();
    expect(email.failed_count).toBe(2);
    // Ordinary bounces suppress nothing.
    expect(await eaDb(runtime).selectFrom("suppressions").selectAll().execute()).toEqual([]);
  });

  it("605/607 bounces and complaints suppress the address and disable the member's email", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 3 });
    const e = s.emails[0]!;
    const [a, b, c] = s.members as Array<{ email: string; id: string }>;
    fake.addEvents([
      {
        event: "failed",
        timestamp: minutesAgo(20),
        recipient: a!.email,
        emailId: e.id,
        failure: "suppress-bounce",
      },
      {
        event: "failed",
        timestamp: minutesAgo(19),
        recipient: b!.email,
        emailId: e.id,
        failure: "suppress-complaint",
      },
      { event: "complained", timestamp: minutesAgo(18), recipient: c!.email, emailId: e.id },
      { event: "complained", timestamp: minutesAgo(17), recipient: c!.email, emailId: e.id },
    ]);
    const report = await runFetch(runtime);
    expect(report.summary.counts).toMatchObject({ permanentFailed: 2, complained: 2 });
    const suppressions = await eaDb(runtime)
      .selectFrom("suppressions")
      .select(["email", "reason", "email_id"])
      .orderBy("email")
      .execute();
    expect(suppressions).toEqual([
      { email: a!.email, reason: "bounce", email_id: e.id },
      { email: b!.email, reason: "bounce", email_id: e.id },
      { email: c!.email, reason: "spam", email_id: e.id },
    ]);
    const disabled = await eaDb(runtime)
      .selectFrom("members")
      .select(["id", "email_disabled"])
      .orderBy("id")
      .execute();
    expect(disabled.map((m) => Number(m.email_disabled))).toEqual([1, 1, 1]);
    const complaints = await eaDb(runtime)
      .selectFrom("email_spam_complaint_events")
      .selectAll()
      .execute();
    expect(complaints.map((x) => [x.member_id, x.email_id, x.email_address])).toEqual([
      [c!.id, e.id, c!.email],
    ]);
  });

  it("unsubscribed removes the member from that email's newsletter only", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 2 });
    const e = s.emails[0]!;
    const m = s.members[0]!;
    await eaDb(runtime)
      .insertInto("members_newsletters")
      .values({
        id: "ab0000000000000000000001",
        member_id: m.id,
        newsletter_id: "other00000000000000000nl",
      })
      .execute();
    fake.addEvent({
      event: "unsubscribed",
      timestamp: minutesAgo(10),
      recipient: m.email,
      emailId: e.id,
    });
    const report = await runFetch(runtime);
    expect(report.summary.counts).toMatchObject({ unsubscribed: 1 });
    const rows = await eaDb(runtime)
      .selectFrom("members_newsletters")
      .select(["member_id", "newsletter_id"])
      .orderBy("member_id")
      .orderBy("newsletter_id")
      .execute();
    expect(rows).toEqual([
      { member_id: m.id, newsletter_id: "other00000000000000000nl" },
      { member_id: s.members[1]!.id, newsletter_id: s.newsletterId },
    ]);
  });
});
