// The fake Mailgun Events API: auth, filters, absolute paging, late events, faults, campaigns.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { basicAuth } from "../../src/pipelines/email-analytics/client/mailgun-events-client.ts";
import type { MailgunEventsPage } from "../../src/pipelines/email-analytics/client/types.ts";
import { EventStore, FAILURE_KINDS } from "../../src/pipelines/email-analytics/fake/event-store.ts";
import { ItemJsonWriter } from "../../src/pipelines/email-analytics/fake/item-json.ts";
import {
  MAILGUN_ORIGIN,
  type MailgunFake,
  startMailgunFake,
} from "../../src/pipelines/email-analytics/fake/mailgun-fake.ts";
import { toMailgunItem } from "../../src/pipelines/email-analytics/fake/payloads.ts";
import { sampleNewsletter } from "../../src/pipelines/email-analytics/fake/sample-newsletter.ts";
import {
  SAMPLE_FILE,
  startEmailAnalyticsFake,
} from "../../src/pipelines/email-analytics/fake/start-fake.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const T0 = Date.parse("2026-01-15T09:00:00Z") / 1000;

async function fake(options: Parameters<typeof startMailgunFake>[0] = {}): Promise<MailgunFake> {
  const f = await startMailgunFake(options);
  onTestFinished(() => f.close());
  return f;
}

async function get(f: MailgunFake, pathOrUrl: string, key = f.apiKey) {
  // The fake's links name Mailgun's host, as the real ones do: rebase them onto the fake.
  const url = pathOrUrl.startsWith("http")
    ? pathOrUrl.replace(MAILGUN_ORIGIN, f.url)
    : `${f.url}/v3/${f.domain}/events?${pathOrUrl}`;
  const res = await fetch(url, { headers: { authorization: basicAuth(key) } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: res.status,
    body: body as MailgunEventsPage & { message?: string },
    text,
    headers: res.headers,
  };
}

/** Follows `paging.next` until an empty page; returns every item. */
async function all(f: MailgunFake, query: string) {
  let page = await get(f, query);
  const items = [];
  let requests = 1;
  while (page.body.items.length > 0) {
    items.push(...page.body.items);
    page = await get(f, page.body.paging.next as string);
    requests++;
  }
  return { items, requests, last: page };
}

describe("fake Mailgun Events API", () => {
  it("answers 401 Forbidden without the right Basic credentials, 404 for another domain", async () => {
    const f = await fake();
    expect((await get(f, "limit=10", "wrong")).status).toBe(401);
    expect((await get(f, "limit=10", "wrong")).text).toBe("Forbidden");
    const res = await fetch(`${f.url}/v3/other.example.com/events`, {
      headers: { authorization: basicAuth(f.apiKey) },
    });
    expect(res.status).toBe(404);
  });

  it("pages with absolute URLs, ascending, and ends with an empty page past the end", async () => {
    const f = await fake();
    for (let i = 0; i < 7; i++) {
      f.addEvent({ event: "delivered", timestamp: T0 + i, recipient: `r${i}@x.io`, emailId: "e1" });
    }
    const first = await get(f, `begin=${T0}&end=${T0 + 100}&ascending=yes&limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((e) => e.recipient)).toEqual(["r0@x.io", "r1@x.io", "r2@x.io"]);
    for (const link of ["next", "previous", "first", "last"] as const) {
      expect(first.body.paging[link]).toMatch(
        new RegExp(`^https://api\\.mailgun\\.net/v3/${f.domain}/events/[\\w-]+$`),
      );
    }
    const { items, requests, last } = await all(
      f,
      `begin=${T0}&end=${T0 + 100}&ascending=yes&limit=3`,
    );
    expect(items.map((e) => e.timestamp)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => T0 + i));
    expect(requests).toBe(4); // 3 + 3 + 1, then the empty page
    expect(last.body.items).toEqual([]);
    expect(last.body.paging.next).toMatch(/^http/);
    // Descending (Mailgun's default) walks the other way.
    const desc = await get(f, `begin=${T0 + 100}&end=${T0}&limit=2`);
    expect(desc.body.items.map((e) => e.timestamp)).toEqual([T0 + 6, T0 + 5]);
  });

  it("filters by event (OR), tags (AND), begin (inclusive) and end (exclusive), RFC 2822 dates too", async () => {
    const f = await fake({ tag: "site-1" });
    const add = (event: string, dt: number, tags?: string[]) =>
      f.addEvent({ event, timestamp: T0 + dt, recipient: "a@x.io", emailId: "e1", tags });
    add("delivered", 0);
    add("opened", 1);
    add("failed", 2);
    add("clicked", 3);
    add("opened", 4, ["bulk-email"]);
    add("opened", 10);
    const q = (s: string) => all(f, `ascending=yes&limit=300&${s}`).then((r) => r.items);
    expect((await q(`begin=${T0}&end=${T0 + 10}&event=opened`)).map((e) => e.timestamp)).toEqual([
      T0 + 1,
      T0 + 4,
    ]);
    expect(
      (await q(`begin=${T0}&end=${T0 + 10}&event=${encodeURIComponent("opened OR failed")}`)).map(
        (e) => e.event,
      ),
    ).toEqual(["opened", "failed", "opened"]);
    const tagged = await q(
      `begin=${T0}&end=${T0 + 11}&event=opened&tags=${encodeURIComponent("bulk-email AND site-1")}`,
    );
    expect(tagged.map((e) => e.timestamp)).toEqual([T0 + 1, T0 + 10]);
    const rfc = new Date((T0 + 4) * 1000).toUTCString();
    expect(
      (await q(`begin=${encodeURIComponent(rfc)}&event=opened`)).map((e) => e.timestamp),
    ).toEqual([T0 + 4, T0 + 10]);
  });

  it("answers 400 Inconsistent range and rejects limits over 300", async () => {
    const f = await fake();
    const bad = await get(f, `begin=${T0 + 10}&end=${T0}&ascending=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      `Inconsistent range: begin=${T0 + 10}, end=${T0}, ascending=True`,
    );
    expect((await get(f, "limit=301")).status).toBe(400);
  });

  it("shows late events only once their delay has passed, and never before their timestamp", async () => {
    const clock = new ManualClock(new Date(T0 * 1000 + 3_600_000));
    const f = await fake({ clock });
    f.addEvent({
      event: "opened",
      timestamp: T0,
      recipient: "a@x.io",
      emailId: "e1",
      delayMs: 600_000,
    });
    f.addEvent({ event: "opened", timestamp: T0 + 7200, recipient: "b@x.io", emailId: "e1" });
    const q = `begin=${T0}&end=${T0 + 10_000}&ascending=yes`;
    expect((await all(f, q)).items).toEqual([]);
    clock.advance(600_000);
    expect((await all(f, q)).items.map((e) => e.recipient)).toEqual(["a@x.io"]);
    clock.advance(3_600_000);
    expect((await all(f, q)).items.map((e) => e.recipient)).toEqual(["a@x.io", "b@x.io"]);
  });

  it("pages through many events sharing one timestamp without repeating or losing any", async () => {
    const f = await fake();
    for (let i = 0; i < 700; i++) {
      f.addEvent({ event: "delivered", timestamp: T0, recipient: `r${i}@x.io`, emailId: "e1" });
    }
    const { items, requests } = await all(f, `begin=${T0}&end=${T0 + 1}&ascending=yes&limit=300`);
    expect(items).toHaveLength(700);
    expect(new Set(items.map((e) => e.id)).size).toBe(700);
    expect(requests).toBe(4);
  });

  it("serves every event type, failures with realistic delivery statuses and severities", async () => {
    const f = await fake();
    const base = { recipient: "a@x.io", emailId: "e1", messageId: "m1@mg.example.com" };
    f.addEvent({ ...base, event: "failed", timestamp: T0, failure: "bounce" });
    f.addEvent({ ...base, event: "failed", timestamp: T0 + 1, failure: "suppress-bounce" });
    f.addEvent({ ...base, event: "failed", timestamp: T0 + 2, failure: "mailbox-full" });
    f.addEvent({
      ...base,
      event: "failed",
      timestamp: T0 + 3,
      severity: "temporary",
      deliveryStatus: null,
    });
    for (const [i, event] of [
      "accepted",
      "rejected",
      "delivered",
      "opened",
      "clicked",
      "unsubscribed",
      "complained",
      "stored",
    ].entries()) {
      f.addEvent({ ...base, event, timestamp: T0 + 10 + i });
    }
    const { items } = await all(f, `begin=${T0}&end=${T0 + 100}&ascending=yes&limit=300`);
    expect(items[0]).toMatchObject({
      event: "failed",
      severity: "permanent",
      reason: "bounce",
      "log-level": "error",
      "user-variables": { "email-id": "e1" },
      message: { headers: { "message-id": "m1@mg.example.com" } },
      "delivery-status": { code: 550, "enhanced-code": "5.1.1" },
    });
    expect(items[1]).toMatchObject({
      severity: "permanent",
      reason: "suppress-bounce",
      "delivery-status": { code: 605, message: "" },
    });
    expect(items[2]).toMatchObject({ severity: "temporary", "delivery-status": { code: 452 } });
    expect(items[3]?.["delivery-status"]).toBeUndefined();
    expect(items.slice(4).map((e) => e.event)).toEqual([
      "accepted",
      "rejected",
      "delivered",
      "opened",
      "clicked",
      "unsubscribed",
      "complained",
      "stored",
    ]);
    expect(items[6]?.["delivery-status"]).toMatchObject({ code: 250, message: "OK" });
    expect(items[7]?.["client-info"]).toBeDefined();
    expect(items.every((e) => typeof e.id === "string" && e.id.length === 22)).toBe(true);
  });

  it("injects 429 (with Retry-After), 5xx and 401 answers on demand", async () => {
    const f = await fake();
    f.failNext(429, 1, 3);
    f.failNext(503);
    f.failNext(401);
    const a = await get(f, "limit=1");
    expect(a.status).toBe(429);
    expect(a.headers.get("retry-after")).toBe("3");
    expect((await get(f, "limit=1")).status).toBe(503);
    expect((await get(f, "limit=1")).status).toBe(401);
    expect((await get(f, "limit=1")).status).toBe(200);
  });

  it("generates a realistic, seeded campaign for the given emails and recipients", async () => {
    const f = await fake();
    const sample = sampleNewsletter({
      members: 400,
      emails: 2,
      recipientsPerEmail: 400,
      firstSentAt: new Date((T0 - 5 * 86400) * 1000),
    });
    const summary = f.generateCampaign({ emails: sample.campaign, seed: 7, lateFraction: 0 });
    expect(summary.events).toBe(f.eventCount);
    expect(summary.byType.delivered).toBeGreaterThan(700);
    expect(summary.byType.opened).toBeGreaterThan(250);
    expect(summary.byType.failed).toBeGreaterThan(0);
    for (const e of summary.expectations) {
      expect(e.delivered + e.failed).toBe(400);
      expect(e.opened).toBeLessThanOrEqual(e.delivered);
    }
    const again = await fake();
    expect(again.generateCampaign({ emails: sample.campaign, seed: 7, lateFraction: 0 })).toEqual(
      summary,
    );
    const { items } = await all(f, `begin=${T0 - 6 * 86400}&end=${T0}&ascending=yes&limit=300`);
    expect(items).toHaveLength(summary.events);
    const ts = items.map((e) => e.timestamp);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    const batchIds = new Set(sample.campaign[0]?.recipients.map((r) => r.providerId));
    expect(
      items
        .filter((e) => e["user-variables"]?.["email-id"] === sample.campaign[0]?.id)
        .every(
          (e) =>
            e.message?.headers?.["message-id"] === undefined ||
            batchIds.has(e.message.headers["message-id"]),
        ),
    ).toBe(true);
  });

  it("makes a campaign's late events late against their own time, as Mailgun does", async () => {
    const sentAt = T0 - 86400;
    const q = `begin=${sentAt - 10}&end=${sentAt + 10 * 86400}&ascending=yes&limit=300`;
    const sample = sampleNewsletter({
      members: 50,
      emails: 1,
      recipientsPerEmail: 50,
      firstSentAt: new Date(sentAt * 1000),
    });
    // Just after the send: nothing is visible yet, every event being 2-20 minutes late.
    const fresh = await fake({ clock: new ManualClock(new Date((sentAt + 30) * 1000)) });
    fresh.generateCampaign({ emails: sample.campaign, lateFraction: 1 });
    expect((await all(fresh, q)).items).toEqual([]);
    // A campaign generated days after it happened: its late events have long arrived, so a
    // backfill of those days reads every one (none turns up after the backfill has passed it).
    const old = await fake({ clock: new ManualClock(new Date((sentAt + 10 * 86400) * 1000)) });
    const s = old.generateCampaign({ emails: sample.campaign, lateFraction: 1 });
    expect((await all(old, q)).items).toHaveLength(s.events);
  });

  it("generates repeat opens up to a target and collisions on whole-second timestamps", async () => {
    const f = await fake();
    const sample = sampleNewsletter({
      members: 100,
      emails: 1,
      recipientsPerEmail: 100,
      firstSentAt: new Date((T0 - 86400) * 1000),
    });
    const s = f.generateCampaign({
      emails: sample.campaign,
      targetEvents: 1000,
      timestampResolution: 1,
      lateFraction: 0,
    });
    expect(s.events).toBe(1000);
    expect(Number.isInteger(s.first) && Number.isInteger(s.last)).toBe(true);
  });

  it("writes the same JSON through its item templates as the plain item builder", () => {
    const store = new EventStore();
    const types = [
      "accepted",
      "rejected",
      "delivered",
      "failed",
      "opened",
      "clicked",
      "unsubscribed",
      "complained",
      "stored",
    ];
    let n = 0;
    for (const type of types) {
      for (let variant = 0; variant < FAILURE_KINDS.length; variant++) {
        for (const ids of [
          [undefined, "m@mg.x"],
          ["e1", undefined],
          ['e"2', "<m\\2>"],
        ] as const) {
          store.add({
            type,
            timestamp: T0 + n++ / 7,
            visibleAt: 0,
            recipient: `u${n}.x"y@ex-${n}.io`,
            emailId: ids[0],
            messageId: ids[1],
            tags: n % 2 ? ["bulk-email"] : ["bulk-email", "t"],
            variant,
          });
        }
      }
    }
    store.add({
      type: "failed",
      timestamp: T0,
      visibleAt: 0,
      recipient: "no-at-sign",
      tags: [],
      overrides: { severity: "temporary" },
    });
    const writer = new ItemJsonWriter(store, "mg.example.com", "prefix123456");
    for (let seq = 0; seq < store.size; seq++) {
      expect(JSON.parse(writer.json(seq))).toEqual(
        JSON.parse(JSON.stringify(toMailgunItem(store.get(seq), "mg.example.com", "prefix123456"))),
      );
    }
  });

  it("starts standalone with a sample newsletter file and its campaign (tidemark fake)", async () => {
    const dataDir = testTempDir("ea-fake-");
    const printed: string[] = [];
    const running = await startEmailAnalyticsFake({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      print: (l) => printed.push(l),
    });
    onTestFinished(() => running.close());
    expect(Object.keys(running.env).sort()).toEqual([
      "MAILGUN_API_KEY",
      "MAILGUN_DOMAIN",
      "TIDEMARK_MAILGUN_URL",
    ]);
    expect(running.hints.join("\n")).toContain(
      `tidemark email-analytics import ${path.join(dataDir, SAMPLE_FILE)}`,
    );
    expect(printed[0]).toMatch(/^fake Mailgun: \d+ events for domain mg\.example\.com/);
    const lines = readFileSync(path.join(dataDir, SAMPLE_FILE), "utf8").trim().split("\n");
    expect(lines.filter((l) => l.includes('"type":"email_recipient"'))).toHaveLength(600);
    const env = running.env as Record<string, string>;
    const res = await fetch(
      `${env.TIDEMARK_MAILGUN_URL}/v3/${env.MAILGUN_DOMAIN}/events?begin=${Math.floor(Date.now() / 1000) - 4 * 86400}&ascending=yes&limit=5`,
      {
        headers: { authorization: basicAuth(env.MAILGUN_API_KEY as string) },
      },
    );
    expect(((await res.json()) as MailgunEventsPage).items).toHaveLength(5);
  });
});
