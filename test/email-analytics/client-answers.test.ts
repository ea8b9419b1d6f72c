// What the Mailgun client makes of answers that are not Mailgun's shape: wrong types and
// impossible timestamps fail the request naming the field; timestamps outside the window asked
// for are skipped and counted.
import { describe, expect, it, onTestFinished } from "vitest";
import { BadPayloadError } from "../../src/engine/http/http-errors.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { createMailgunEventsClient } from "../../src/pipelines/email-analytics/client/mailgun-events-client.ts";
import type { EventsPage } from "../../src/pipelines/email-analytics/client/types.ts";
import { startMailgunFake } from "../../src/pipelines/email-analytics/fake/mailgun-fake.ts";

const T0 = Date.parse("2026-01-15T09:00:00Z") / 1000;
const at = (s: number) => new Date(s * 1000);

async function setup() {
  const fake = await startMailgunFake();
  onTestFinished(() => fake.close());
  const client = createMailgunEventsClient({
    credentials: { baseUrl: fake.url, domain: fake.domain, apiKey: fake.apiKey, tags: [] },
    logger: silentLogger(),
    retry: { sleep: async () => {} },
  });
  const fetch = () =>
    client.fetchEvents({
      begin: at(T0),
      end: at(T0 + 3600),
      events: [],
      fetchStartedAt: at(T0 + 9999),
    });
  const read = async () => {
    const pages: EventsPage[] = [];
    for await (const p of fetch()) pages.push(p);
    return pages;
  };
  return { fake, fetch, read };
}

/** A client whose every request is answered with `body` (for what JSON the fake cannot write). */
function answering(body: string) {
  const client = createMailgunEventsClient({
    credentials: {
      baseUrl: "http://mailgun.test",
      domain: "mg.example.com",
      apiKey: "k",
      tags: [],
    },
    logger: silentLogger(),
    fetch: async () => new Response(body, { headers: { "content-type": "application/json" } }),
  });
  return client.fetchEvents({
    begin: at(T0),
    end: at(T0 + 60),
    events: [],
    fetchStartedAt: at(T0),
  });
}

const failure = async (pages: AsyncIterable<EventsPage>): Promise<BadPayloadError> => {
  try {
    for await (const _ of pages) {
      // read to the failure
    }
  } catch (err) {
    if (err instanceof BadPayloadError) return err;
    throw err;
  }
  throw new Error("the fetch did not fail");
};

describe("Mailgun answers of the wrong shape", () => {
  it("a recipient of the wrong type fails the request, naming the field and the request", async () => {
    const { fake, fetch } = await setup();
    fake.addEvent({ event: "delivered", timestamp: T0 + 1, recipient: "a@x.io", emailId: "e1" });
    fake.addEvent({
      event: "delivered",
      timestamp: T0 + 2,
      recipient: "b@x.io",
      emailId: "e1",
      raw: { recipient: 12345 },
    });
    const err = await failure(fetch());
    expect(err.message).toContain("items[1].recipient: expected a string, got number");
    expect(err.message).toContain(`GET ${fake.url}/v3/mg.example.com/events?`);
  });

  it("other fields the pipeline reads, of the wrong type, fail the request too", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ severity: 5 }, "items[0].severity: expected a string, got number"],
      [{ "user-variables": ["e1"] }, "items[0].user-variables: expected an object, got an array"],
      [{ "user-variables": { "email-id": {} } }, "items[0].user-variables.email-id"],
      [{ message: { headers: { "message-id": true } } }, "items[0].message.headers.message-id"],
      [{ "delivery-status": { code: 550, message: 5 } }, "items[0].delivery-status.message"],
      [{ event: null }, "items[0].event: expected a string, got null"],
    ];
    for (const [raw, field] of cases) {
      const { fake, fetch } = await setup();
      fake.addEvent({ event: "failed", timestamp: T0 + 1, recipient: "a@x.io", emailId: "e", raw });
      expect((await failure(fetch())).message).toContain(field);
    }
  });

  it("a body without items or paging, or a page of events without a next link, fails", async () => {
    const item = `{"id":"x","event":"opened","timestamp":${T0},"recipient":"a@x.io"}`;
    const cases: Array<[string, string]> = [
      ["{}", "items: expected an array"],
      ['{"items":[]}', "paging: expected an object, got undefined"],
      ['{"items":null,"paging":{}}', "items: expected an array"],
      [`{"items":[${item}],"paging":{}}`, "paging.next: expected a string, got undefined"],
      [`{"items":[${item}],"paging":{"next":7}}`, "paging.next: expected a string, got number"],
    ];
    for (const [body, field] of cases) {
      expect((await failure(answering(body))).message).toContain(field);
    }
  });

  it("a timestamp of 0, below 0 or not finite is a wrong value, not 1970", async () => {
    for (const [ts, shown] of [
      ["0", "got 0"],
      ["-5", "got -5"],
      ["1e400", "got Infinity"],
      ['"1521472262"', "got string"],
    ]) {
      const item = `{"id":"x","event":"opened","timestamp":${ts},"recipient":"a@x.io","user-variables":{"email-id":"e"}}`;
      const err = await failure(answering(`{"items":[${item}],"paging":{"next":"x"}}`));
      expect(err.message).toContain(
        `items[0].timestamp: expected positive epoch seconds, ${shown}`,
      );
    }
  });

  it("an event stamped outside the window asked for is skipped and counted; paging goes on", async () => {
    const { fake, read } = await setup();
    for (let i = 0; i < 320; i++) {
      const raw =
        i === 10 ? { timestamp: 1e12 } : i === 20 ? { timestamp: T0 - 86_400 } : undefined;
      fake.addEvent({
        event: "opened",
        timestamp: T0 + i,
        recipient: `r${i}@x.io`,
        emailId: "e1",
        raw,
      });
    }
    const pages = await read();
    expect(pages.map((p) => [p.events.length, p.outOfWindow, p.droppedNewer])).toEqual([
      [298, 2, 0],
      [20, 0, 0],
    ]);
    const stamps = pages.flatMap((p) => p.events.map((e) => e.timestamp.getTime() / 1000));
    expect(Math.max(...stamps)).toBe(T0 + 319);
    expect(Math.min(...stamps)).toBe(T0);
  });
});
