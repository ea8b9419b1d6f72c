// `tidemark email-analytics import`: NDJSON and CSV with Ghost's column names, validated,
// all-or-nothing, idempotent on ids.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { type Database, typed } from "../../src/infra/db/open-database.ts";
import { UsageError } from "../../src/infra/errors.ts";
import { importFile } from "../../src/pipelines/email-analytics/stages/import/run-import.ts";
import type { EmailAnalyticsTables } from "../../src/pipelines/email-analytics/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import {
  batch,
  email,
  id,
  member,
  recipient,
  importScope as scope,
  subscription,
} from "./support/import-records.ts";

const TABLES = [
  "members",
  "members_newsletters",
  "emails",
  "email_batches",
  "email_recipients",
] as const;
const clock = new ManualClock("2026-01-15T09:30:00.000Z");

function ndjson(dir: string, records: unknown[], name = "newsletter.ndjson"): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `${records.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n")}\n`,
  );
  return file;
}

async function snapshot(db: Database) {
  const k = typed<EmailAnalyticsTables>(db);
  const out = {} as Record<(typeof TABLES)[number], unknown[]>;
  for (const t of TABLES) out[t] = await k.selectFrom(t).selectAll().orderBy("id").execute();
  return out;
}

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return (err as Error).message;
}

describeEachDialect("email-analytics import", (h) => {
  const fresh = async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    return db;
  };

  it("imports records in any order and fills what Ghost fills itself", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    const file = ndjson(dir, [recipient, batch, subscription, email, member]);
    const result = await importFile(db, clock, file);
    expect(result.inserted).toEqual({
      members: 1,
      members_newsletters: 1,
      emails: 1,
      email_batches: 1,
      email_recipients: 1,
    });
    const s = await snapshot(db);
    expect(s.members[0]).toMatchObject({
      id: id("a"),
      email: "ada@example.com",
      status: "free",
      email_count: 0,
      email_opened_count: 0,
      email_open_rate: null,
      email_disabled: 0,
      last_seen_at: null,
      created_at: "2026-01-15T09:30:00.000Z",
    });
    const uuid = (s.members[0] as { uuid: string }).uuid;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.emails[0]).toMatchObject({
      status: "submitted",
      track_opens: 1,
      track_clicks: 0,
      email_count: 1,
      delivered_count: 0,
      submitted_at: "2026-01-14T07:00:00.000Z",
      created_at: "2026-01-15T09:30:00.000Z",
    });
    expect(s.email_batches[0]).toMatchObject({
      provider_id: "20260114.1@mg.example.com",
      status: "submitted",
    });
    expect(s.email_recipients[0]).toMatchObject({
      member_uuid: uuid,
      member_email: "ada@example.com",
      member_name: "Ada",
      delivered_at: null,
    });
    expect(s.members_newsletters[0]).toEqual({
      id: id("s"),
      member_id: id("a"),
      newsletter_id: id("n"),
    });
  });

  it("changes nothing when imported twice, even after the fetch filled rows in", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    const file = ndjson(dir, [member, email, batch, recipient, subscription]);
    await importFile(db, clock, file);
    const k = typed<EmailAnalyticsTables>(db);
    await k
      .updateTable("email_recipients")
      .set({ delivered_at: "2026-01-15T10:00:00.000Z" })
      .execute();
    await k.updateTable("members").set({ email_count: 1 }).execute();
    const before = await snapshot(db);
    const again = await importFile(db, clock, file);
    expect(again.inserted).toEqual({
      members: 0,
      members_newsletters: 0,
      emails: 0,
      email_batches: 0,
      email_recipients: 0,
    });
    expect(again.present).toEqual({
      members: 1,
      members_newsletters: 1,
      emails: 1,
      email_batches: 1,
      email_recipients: 1,
    });
    expect(await snapshot(db)).toEqual(before);
  });

  it("reports a bad line with its number and imports nothing of the file", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    const cases: Array<[unknown[], RegExp]> = [
      [[member, "{not json"], /^newsletter\.ndjson:2: not JSON/],
      [[member, { ...email, type: "post" }], /:2: type: expected member, newsletter_subscription/],
      [
        [member, { ...member, id: id("c"), emial: "x@y.z" }],
        /:2: member\.emial: not a column of members/,
      ],
      [
        [member, email, { ...batch, created_at: "yesterday" }],
        /:3: email_batch\.created_at: expected an ISO-8601 timestamp/,
      ],
      [[{ ...member, email: undefined }], /:1: member\.email: required/],
      [
        [member, email, batch, { ...recipient, email_id: id("f") }],
        /:4: email_recipient\.email_id: email f+ is neither in the file nor in the database/,
      ],
      [
        [
          member,
          email,
          { ...email, id: id("g"), post_id: id("q") },
          batch,
          { ...batch, id: id("c"), email_id: id("g") },
          { ...recipient, batch_id: id("c") },
        ],
        /:6: email_recipient\.batch_id: email_batch c+ belongs to email g+, not e+/,
      ],
      [
        [member, { ...member, id: id("c") }],
        /:2: member\.email: ada@example\.com is also given on line 1/,
      ],
      [
        [member, { ...member, name: "Other" }],
        /:2: members id a+ is already on line 1 with other values/,
      ],
      [
        [member, email, batch, { ...recipient, member_id: id("z") }],
        /:4: email_recipient\.member_id: member z+ is neither in the file nor in the database/,
      ],
      [
        [{ ...member, email_open_rate: 101 }],
        /:1: member\.email_open_rate: expected 0-100, got 101/,
      ],
    ];
    for (const [records, message] of cases) {
      const file = ndjson(dir, records as unknown[]);
      expect(await failure(importFile(db, clock, file))).toMatch(message);
    }
    for (const rows of Object.values(await snapshot(db))) expect(rows).toEqual([]);
  });

  it("checks unique keys and references against what the database already holds", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    await importFile(db, clock, ndjson(dir, [member, email, batch]));
    // A second file may point at rows of the first (recipients imported later).
    const later = await importFile(db, clock, ndjson(dir, [recipient], "later.ndjson"));
    expect(later.inserted.email_recipients).toBe(1);
    const clash = ndjson(dir, [{ ...member, id: id("c") }], "clash.ndjson");
    expect(await failure(importFile(db, clock, clash))).toMatch(
      /clash\.ndjson:1: member\.email: ada@example\.com already belongs to member a+ in the database/,
    );
  });

  it("imports a CSV per table with Ghost's column names as header", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const members = write(
      "members.csv",
      `id,uuid,email,name,email_disabled,transient_id,last_seen_at\n${id("a")},,ada@example.com,Ada,false,t1,\\N\n${id("c")},u-c,cy@example.com,"Cy, Jr.",true,t2,2026-01-10 08:00:00\n`,
    );
    expect((await importFile(db, clock, members, { table: "members" })).inserted.members).toBe(2);
    const emails = write(
      "emails.csv",
      `id,post_id,track_opens,submitted_at,created_at\n${id("e")},${id("p")},1,2026-01-14T07:00:00Z,2026-01-14T07:00:00Z\n`,
    );
    await importFile(db, clock, emails, { table: "emails" });
    const batches = write(
      "batches.csv",
      `id,email_id,provider_id\n${id("b")},${id("e")},m1@mg.example.com\n`,
    );
    await importFile(db, clock, batches, { table: "email_batches" });
    const recipients = write(
      "recipients.csv",
      `id,email_id,member_id,batch_id,delivered_at\n${id("r")},${id("e")},${id("c")},${id("b")},\n`,
    );
    await importFile(db, clock, recipients, { table: "email_recipient" });
    const s = await snapshot(db);
    expect(s.members).toMatchObject([
      { id: id("a"), name: "Ada", email_disabled: 0, last_seen_at: null },
      {
        id: id("c"),
        uuid: "u-c",
        name: "Cy, Jr.",
        email_disabled: 1,
        last_seen_at: "2026-01-10T08:00:00.000Z",
      },
    ]);
    expect(s.emails[0]).toMatchObject({ created_at: "2026-01-14T07:00:00.000Z", track_opens: 1 });
    expect(s.email_recipients[0]).toMatchObject({
      member_uuid: "u-c",
      member_email: "cy@example.com",
      delivered_at: null,
    });

    const bad = write("bad.csv", `id,email\n${id("x")},x@example.com\n${id("y")},not-an-address\n`);
    expect(await failure(importFile(db, clock, bad, { table: "members" }))).toMatch(
      /^bad\.csv:3: members\.email: not an email address/,
    );
    const header = write("header.csv", "id,mail\n");
    expect(await failure(importFile(db, clock, header, { table: "members" }))).toMatch(
      /^header\.csv:1: header: mail is not a column of members/,
    );
    expect(await failure(importFile(db, clock, members, { table: "posts" }))).toMatch(
      /--table posts: expected one of members, members_newsletters/,
    );
    expect((await snapshot(db)).members).toHaveLength(2);
  });

  it("checks without writing on --dry-run, and refuses a missing file", async () => {
    const db = await fresh();
    const dir = testTempDir("ea-import-");
    const result = await importFile(db, clock, ndjson(dir, [member]), { dryRun: true });
    expect(result).toMatchObject({ dryRun: true, inserted: { members: 1 } });
    expect((await snapshot(db)).members).toEqual([]);
    expect(await failure(importFile(db, clock, path.join(dir, "none.ndjson")))).toMatch(
      /none\.ndjson: no such file/,
    );
  });
});
