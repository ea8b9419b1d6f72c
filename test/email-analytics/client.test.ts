// The Mailgun events client: Ghost's query and paging, stop rules, normalization, errors.
import { describe, expect, it, onTestFinished } from "vitest";
import { ClientHttpError } from "../../src/engine/http/http-errors.ts";
import { resolvePipelineSettings } from "../../src/infra/config/pipeline-settings.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import {
  createMailgunEventsClient,
  type MailgunClientOptions,
} from "../../src/pipelines/email-analytics/client/mailgun-events-client.ts";
import { normalizeEvent } from "../../src/pipelines/email-analytics/client/normalize-event.ts";
import type { EventsPage, MailgunEvent } from "../../src/pipelines/email-analytics/client/types.ts";
import {
  type MailgunFake,
  startMailgunFake,
} from "../../src/pipelines/email-analytics/fake/mailgun-fake.ts";
import {
  emailAnalyticsSettings,
  mailgunCredentials,
} from "../../src/pipelines/email-analytics/settings.ts";

const T0 = Date.parse("2026-01-15T09:00:00Z") / 1000;
const at = (s: number) => new Date(s * 1000);

async function setup(tags = ["bulk-email"], extra: Partial<MailgunClientOptions> = {}) {
  const fake = await startMailgunFake({ tag: tags[1] });
  onTestFinished(() => fake.close());
  const client = createMailgunEventsClient({
    credentials: { baseUrl: fake.url, domain: fake.domain, apiKey: fake.apiKey, tags },
    logger: silentLogger(),
    retry: { sleep: async () => {} },
    ...extra,
  });
  return { fake, client };
}

async function collect(pages: AsyncIterable<EventsPage>): Promise<EventsPage[]> {
  const out: EventsPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

function add(fake: MailgunFake, n: number, ts: (i: number) => number, event = "opened") {
  for (let i = 0; i < n; i++) {
    fake.addEvent({ event, timestamp: ts(i), recipient: `r${i}@x.io`, emailId: "e1" });
  }
}

describe("Mailgun events client", () => {
  it("asks as Ghost does: limit 300, event OR, tags AND, epoch-second window, ascending, Basic auth", async () => {
    const { fake, client } = await setup(["bulk-email", "site-1"]);
    add(fake, 2, (i) => T0 + i);
    const begin = new Date(T0 * 1000 - 500);
    const pages = await collect(
      client.fetchEvents({
        begin,
        end: at(T0 + 60),
        events: ["delivered", "failed"],
        fetchStartedAt: at(T0 + 3600),
      }),
    );
    expect(pages).toEqual([]);
    const q = fake.requests[0]?.query;
    expect(q).toEqual({
      begin: String((T0 * 1000 - 500) / 1000),
      end: String(T0 + 60),
      limit: "300",
      event: "delivered OR failed",
      tags: "bulk-email AND site-1",
      ascending: "yes",
    });
    expect(fake.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`api:${fake.apiKey}`).toString("base64")}`,
    );
  });

  it("follows paging.next until an empty page and yields normalized events in order", async () => {
    const { fake, client } = await setup();
    add(fake, 650, (i) => T0 + i);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1000),
        events: ["opened"],
        fetchStartedAt: at(T0 + 9999),
      }),
    );
    expect(pages.map((p) => p.events.length)).toEqual([300, 300, 50]);
    expect(fake.requests).toHaveLength(4);
    expect(fake.requests[1]?.path).toMatch(/^\/v3\/mg\.example\.com\/events\/[\w-]+$/);
    const first = pages[0]?.events[0];
    expect(first).toMatchObject({
      type: "opened",
      recipientEmail: "r0@x.io",
      emailId: "e1",
      error: null,
    });
    expect(first?.timestamp.toISOString()).toBe("2026-01-15T09:00:00.000Z");
  });

  it("drops events stamped after the fetch started, and pages on to the end of the window", async () => {
    const { fake, client } = await setup();
    add(fake, 400, (i) => T0 + i);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1000),
        events: [],
        fetchStartedAt: at(T0 + 349),
      }),
    );
    expect(pages.map((p) => [p.events.length, p.droppedNewer])).toEqual([
      [300, 0],
      [50, 50],
    ]);
    // One wrong timestamp must not cut a traversal short: only the empty page ends it.
    expect(fake.requests).toHaveLength(3);
  });

  it("skips events with neither message id nor email id, and keeps paging", async () => {
    const { fake, client } = await setup();
    fake.addEvent({ event: "opened", timestamp: T0, recipient: "a@x.io" });
    fake.addEvent({ event: "opened", timestamp: T0 + 1, recipient: "b@x.io", messageId: "m@x" });
    const [page] = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 10),
        events: [],
        fetchStartedAt: at(T0 + 99),
      }),
    );
    expect(page?.droppedNoId).toBe(1);
    expect(page?.events.map((e) => [e.recipientEmail, e.providerId, e.emailId])).toEqual([
      ["b@x.io", "m@x", undefined],
    ]);
  });

  it("stops after the page that reaches maxEvents once its last event is after begin", async () => {
    const { fake, client } = await setup();
    add(fake, 900, (i) => T0 + i);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1000),
        events: [],
        maxEvents: 500,
        fetchStartedAt: at(T0 + 9999),
      }),
    );
    expect(pages.map((p) => p.events.length)).toEqual([300, 300]);
  });

  it("never stalls on many events sharing the begin timestamp: keeps going past maxEvents", async () => {
    const { fake, client } = await setup();
    add(fake, 700, () => T0);
    add(fake, 10, (i) => T0 + 1 + i);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1000),
        events: [],
        maxEvents: 300,
        fetchStartedAt: at(T0 + 9999),
      }),
    );
    // Pages 1-2 end on `begin` itself; page 3 is the first whose last event is after it.
    expect(pages.map((p) => p.events.length)).toEqual([300, 300, 110]);
  });

  it("fetches the next page while the caller applies the current one; stopping early is clean", async () => {
    const { fake, client } = await setup();
    add(fake, 900, (i) => T0 + i);
    const pages = client.fetchEvents({
      begin: at(T0),
      end: at(T0 + 1000),
      events: [],
      fetchStartedAt: at(T0 + 9999),
    });
    // Page 2 fails for good (400 is not retried).
    fake.faults.set({ statusSequence: [200, 400] });
    const first = await pages.next();
    expect(first.value?.events).toHaveLength(300);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.requests).toHaveLength(2); // page 2 already asked for, before the caller asked
    // Nobody reads the failed prefetch: no unhandled rejection, the generator just ends.
    await pages.return(undefined);
    // A caller that goes on gets the error when it asks for that page.
    fake.faults.set({ statusSequence: [200, 400] });
    const again = client.fetchEvents({
      begin: at(T0),
      end: at(T0 + 1000),
      events: [],
      fetchStartedAt: at(T0 + 9999),
    });
    expect((await again.next()).value?.events).toHaveLength(300);
    await expect(again.next()).rejects.toBeInstanceOf(ClientHttpError);
  });

  it("retries 429 and 5xx through the HTTP client, then succeeds", async () => {
    const { fake, client } = await setup();
    add(fake, 3, (i) => T0 + i);
    fake.failNext(429);
    fake.failNext(502);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 10),
        events: [],
        fetchStartedAt: at(T0 + 99),
      }),
    );
    expect(pages[0]?.events).toHaveLength(3);
    expect(pages[0]?.attempts).toBe(3);
  });

  it("throws Mailgun's 400 Inconsistent range and 401 as client errors, without the key", async () => {
    const { fake, client } = await setup();
    const run = () =>
      collect(
        client.fetchEvents({ begin: at(T0 + 10), end: at(T0), events: [], fetchStartedAt: at(T0) }),
      );
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientHttpError);
    expect((err as ClientHttpError).message).toContain("Inconsistent range");
    expect((err as ClientHttpError).status).toBe(400);
    fake.failNext(401);
    const e401 = (await collect(
      client.fetchEvents({ begin: at(T0), end: at(T0 + 1), events: [], fetchStartedAt: at(T0) }),
    ).catch((e: unknown) => e)) as ClientHttpError;
    expect(e401.status).toBe(401);
    expect(e401.message).not.toContain(fake.apiKey);
    expect(fake.requests.filter((r) => r.query.begin !== undefined).length).toBe(2); // no retry of 4xx
  });

  it("follows the fake's links, which name Mailgun's host as the real ones do, on the configured URL", async () => {
    const links: string[] = [];
    const { fake, client } = await setup(["bulk-email"], {
      // Sees each answer as Mailgun's host wrote it, before the client reads it.
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const body = (await res.clone().json()) as { paging?: { next?: string } };
        if (body.paging?.next) links.push(body.paging.next);
        return res;
      },
    });
    add(fake, 400, (i) => T0 + i);
    const pages = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1000),
        events: ["opened"],
        fetchStartedAt: at(T0 + 9999),
      }),
    );
    expect(pages.map((p) => p.events.length)).toEqual([300, 100]);
    expect(links[0]).toMatch(/^https:\/\/api\.mailgun\.net\/v3\/mg\.example\.com\/events\/[\w-]+$/);
    // Every link went to the fake, at the path Mailgun's host named.
    expect(fake.requests.map((r) => r.path).slice(1)).toEqual(
      links.slice(0, 2).map((l) => new URL(l).pathname),
    );
  });

  it("rebases paging links on Mailgun's public host onto the configured URL (proxies, the EU host)", async () => {
    const seen: string[] = [];
    const pages = [
      {
        items: [
          {
            id: "a",
            event: "opened",
            timestamp: T0,
            recipient: "a@x.io",
            "user-variables": { "email-id": "e" },
          },
        ],
        paging: { next: "https://api.eu.mailgun.net/v3/mg.example.com/events/TOKEN1" },
      },
      { items: [], paging: { next: "https://api.eu.mailgun.net/v3/mg.example.com/events/TOKEN2" } },
    ];
    const client = createMailgunEventsClient({
      credentials: {
        baseUrl: "http://proxy.test:8080",
        domain: "mg.example.com",
        apiKey: "k",
        tags: ["bulk-email"],
      },
      logger: silentLogger(),
      fetch: async (input) => {
        seen.push(String(input));
        return new Response(JSON.stringify(pages[seen.length - 1]), {
          headers: { "content-type": "application/json" },
        });
      },
    });
    const out = await collect(
      client.fetchEvents({
        begin: at(T0),
        end: at(T0 + 1),
        events: ["opened"],
        fetchStartedAt: at(T0 + 9),
      }),
    );
    expect(out).toHaveLength(1);
    expect(seen[0]).toMatch(/^http:\/\/proxy\.test:8080\/v3\/mg\.example\.com\/events\?/);
    expect(seen[1]).toBe("http://proxy.test:8080/v3/mg.example.com/events/TOKEN1");
  });
});

describe("normalizeEvent (Ghost's provider rules)", () => {
  const base: MailgunEvent = {
    id: "x",
    event: "failed",
    timestamp: T0 + 0.123456,
    recipient: "a@x.io",
    severity: "permanent",
    "user-variables": { "email-id": "e1" },
  };

  it("takes message || description, cuts the message at 2000 and the enhanced code at 50", () => {
    const e = normalizeEvent({
      ...base,
      "delivery-status": { code: 550, message: "m".repeat(2100), "enhanced-code": "5".repeat(60) },
    });
    expect(e?.error).toEqual({
      code: 550,
      message: "m".repeat(2000),
      enhancedCode: "5".repeat(50),
    });
    expect(
      normalizeEvent({
        ...base,
        "delivery-status": { code: 605, message: "", description: "Not delivering" },
      })?.error,
    ).toEqual({ code: 605, message: "Not delivering", enhancedCode: null });
    expect(
      normalizeEvent({ ...base, "delivery-status": { code: 421, message: "", description: "" } })
        ?.error,
    ).toEqual({ code: 421, message: "", enhancedCode: null });
    expect(normalizeEvent({ ...base, "delivery-status": { code: 550 } })?.error).toBeNull();
    expect(normalizeEvent(base)?.error).toBeNull();
  });

  it("keeps Mailgun's microseconds to the millisecond and both ids; null without any id", () => {
    const e = normalizeEvent({ ...base, message: { headers: { "message-id": "m@x" } } });
    expect(e).toMatchObject({
      id: "x",
      type: "failed",
      severity: "permanent",
      emailId: "e1",
      providerId: "m@x",
    });
    expect(e?.timestamp.getTime()).toBe(Math.round((T0 + 0.123456) * 1000));
    expect(normalizeEvent({ ...base, "user-variables": {} })).toBeNull();
  });
});

describe("email-analytics settings", () => {
  const resolve = (section: unknown, env: NodeJS.ProcessEnv = {}) =>
    resolvePipelineSettings("email-analytics", emailAnalyticsSettings, section, env, {
      file: "tidemark.yaml",
      dataDir: ".",
    });

  it("defaults to the US host, picks the EU host by region, strips /v3 from base_url", () => {
    expect(resolve(undefined)).toMatchObject({
      baseUrl: "https://api.mailgun.net",
      region: "us",
      tags: ["bulk-email"],
      openedLagWarningMinutes: 30,
    });
    expect(resolve({ region: "eu" }).baseUrl).toBe("https://api.eu.mailgun.net");
    expect(resolve({ base_url: "https://api.eu.mailgun.net/v3/", tag: "site" })).toMatchObject({
      baseUrl: "https://api.eu.mailgun.net",
      tags: ["bulk-email", "site"],
    });
  });

  it("takes TIDEMARK_MAILGUN_URL and MAILGUN_DOMAIN from the environment unless use_env is false", () => {
    const env = { TIDEMARK_MAILGUN_URL: "http://127.0.0.1:9", MAILGUN_DOMAIN: "mg.test.io" };
    expect(resolve({ domain: "mg.file.io" }, env)).toMatchObject({
      baseUrl: "http://127.0.0.1:9",
      domain: "mg.test.io",
    });
    expect(resolve({ domain: "mg.file.io", use_env: false }, env)).toMatchObject({
      baseUrl: "https://api.mailgun.net",
      domain: "mg.file.io",
    });
    expect(() => resolve({ region: "asia" })).toThrow(/pipelines\.email-analytics\.region/);
    expect(() => resolve({}, { TIDEMARK_MAILGUN_URL: "ftp://x" })).toThrow(/TIDEMARK_MAILGUN_URL/);
  });

  it("needs the domain and MAILGUN_API_KEY to call Mailgun, naming where to set them", () => {
    const settings = resolve({ domain: "mg.x.io" });
    expect(mailgunCredentials(settings, { MAILGUN_API_KEY: "key-123" })).toEqual({
      baseUrl: "https://api.mailgun.net",
      domain: "mg.x.io",
      apiKey: "key-123",
      tags: ["bulk-email"],
    });
    expect(() => mailgunCredentials(settings, {})).toThrow(/MAILGUN_API_KEY is not set/);
    expect(() => mailgunCredentials(resolve({}), { MAILGUN_API_KEY: "k" })).toThrow(
      /tidemark\.yaml or MAILGUN_DOMAIN$/,
    );
    // use_env: false ignores an exported MAILGUN_DOMAIN: the message does not offer it.
    const envIgnored = resolve({ use_env: false }, { MAILGUN_DOMAIN: "mg.test.io" });
    expect(() => mailgunCredentials(envIgnored, { MAILGUN_API_KEY: "k" })).toThrow(
      "set pipelines.email-analytics.domain in tidemark.yaml (use_env: false ignores MAILGUN_DOMAIN)",
    );
  });
});
