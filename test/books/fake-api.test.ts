// The fake Google Books API: the realism the pipeline relies on, over real HTTP.
import { describe, expect, it } from "vitest";
import { startFakeServer } from "../../src/engine/fakes/fake-server.ts";
import { isGoogleQuotaError } from "../../src/pipelines/books/client/google-quota-error.ts";
import { GoogleBooksFake } from "../../src/pipelines/books/fake/google-books-fake.ts";
import { startBooksFake } from "./support/books-harness.ts";

interface Page {
  kind?: string;
  totalItems: number;
  items?: Array<{ id: string; volumeInfo: Record<string, unknown> }>;
}

async function get(
  url: string,
  path: string,
): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const res = await fetch(`${url}${path}`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
}

const vol = (q: string, start: number, max: number, extra = "") =>
  `/books/v1/volumes?q=${encodeURIComponent(q)}&startIndex=${start}&maxResults=${max}${extra}`;

describe("fake Google Books API", () => {
  it("serves a seeded corpus per query: same query, same volumes, in any process", async () => {
    const a = await startBooksFake();
    const b = await startBooksFake();
    const pa = (await get(a.server.url, vol("intitle:consulting", 0, 40))).body as Page;
    const pb = (await get(b.server.url, vol("intitle:consulting", 0, 40))).body as Page;
    expect(pa.items?.map((i) => i.id)).toEqual(pb.items?.map((i) => i.id));
    expect(pa.totalItems).toBe(pb.totalItems);
    expect(pa.totalItems).toBeGreaterThanOrEqual(40);
    expect(pa.totalItems).toBeLessThan(1400);
    const other = (await get(a.server.url, vol("subject:gardening", 0, 40))).body as Page;
    expect(other.items?.[0]?.id).not.toBe(pa.items?.[0]?.id);
    expect(pa.items?.[0]).toMatchObject({ kind: "books#volume", volumeInfo: { language: "en" } });
    expect(String(pa.items?.[0]?.volumeInfo.title)).toContain("Consulting");
  });

  it("omits items past the end: {kind, totalItems: 0}", async () => {
    const { server } = await startBooksFake({ sizes: { q: 30 } });
    const res = await get(server.url, vol("q", 30, 40));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ kind: "books#volumes", totalItems: 0 });
  });

  it("stops giving items near 1,000 while totalItems still claims more", async () => {
    const { server } = await startBooksFake({ sizes: { big: 1400 } });
    const near = (await get(server.url, vol("big", 950, 10))).body as Page;
    expect(near.items).toHaveLength(10);
    const past = (await get(server.url, vol("big", 1040, 40))).body as Page;
    expect(past).toEqual({ kind: "books#volumes", totalItems: 1400 });
  });

  it("answers maxResults > 40 with Google's 400 payload", async () => {
    const { server } = await startBooksFake();
    const res = await get(server.url, vol("q", 0, 41));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 400,
        message: "Values must be within the range: [0, 40]",
        errors: [
          {
            message: "Values must be within the range: [0, 40]",
            domain: "global",
            reason: "invalid",
            location: "maxResults",
            locationType: "parameter",
          },
        ],
        status: "INVALID_ARGUMENT",
      },
    });
    const missing = await get(server.url, "/books/v1/volumes?startIndex=0");
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: { message: "Missing query.", errors: [{ reason: "required" }] },
    });
  });

  it("drifts totalItems, shortens pages and repeats items when its quirks are on", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { q: 900 },
      quirks: { drift: true, shortPages: true, repeats: true },
    });
    const pages: Page[] = [];
    let start = 0;
    for (let i = 0; i < 20; i++) {
      const p = (await get(server.url, vol("q", start, 40))).body as Page;
      pages.push(p);
      start += p.items?.length ?? 0;
    }
    const totals = new Set(pages.map((p) => p.totalItems));
    expect(totals.size).toBeGreaterThan(1);
    for (const t of totals) expect(Math.abs(t - 900)).toBeLessThanOrEqual(2);
    expect(fake.calls.some((c) => c.returned > 0 && c.returned < 40)).toBe(true);
    const repeated = pages.some(
      (p, i) => i > 0 && p.items?.[0]?.id === pages[i - 1]?.items?.at(-1)?.id,
    );
    expect(repeated).toBe(true);
  });

  it("shows some volumes under several queries (cross-query duplicates)", async () => {
    const { server } = await startBooksFake({ sizes: { a: 400, b: 400 } });
    const ids = async (q: string) => {
      const out = new Set<string>();
      for (let s = 0; s < 400; s += 40) {
        for (const item of ((await get(server.url, vol(q, s, 40))).body as Page).items ?? [])
          out.add(item.id);
      }
      return out;
    };
    const a = await ids("a");
    const b = await ids("b");
    expect([...a].filter((id) => b.has(id)).length).toBeGreaterThan(0);
  });

  it("answers the daily-quota 429 with Google's payload, and resets at Pacific midnight", async () => {
    let now = new Date("2026-01-15T07:59:00.000Z");
    const { server } = await startBooksFake({ dailyQuota: 2, now: () => now });
    expect((await get(server.url, vol("q", 0, 1))).status).toBe(200);
    expect((await get(server.url, vol("q", 1, 1))).status).toBe(200);
    const res = await get(server.url, vol("q", 2, 1));
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        errors: [{ reason: "rateLimitExceeded", domain: "global" }],
      },
    });
    expect((res.body as { error: { message: string } }).error.message).toMatch(
      /^Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'books\.googleapis\.com'/,
    );
    expect(isGoogleQuotaError({ status: 429, headers: res.headers }, res.text)).toBe(true);
    now = new Date("2026-01-15T08:00:00.000Z");
    expect((await get(server.url, vol("q", 2, 1))).status).toBe(200);
  });

  it("has knobs: injected statuses, a forced quota, per-minute 429s, key checks", async () => {
    const { fake, server } = await startBooksFake({ apiKeys: ["good"] });
    const bad = await get(server.url, vol("q", 0, 1, "&key=bad"));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: { message: "API key not valid. Please pass a valid API key." },
    });
    fake.knobs.failNext = [500, 503];
    expect((await get(server.url, vol("q", 0, 1, "&key=good"))).body).toMatchObject({
      error: { code: 500, errors: [{ reason: "backendError" }] },
    });
    expect((await get(server.url, vol("q", 0, 1, "&key=good"))).status).toBe(503);
    fake.knobs.perMinuteLimited = 1;
    const minute = await get(server.url, vol("q", 0, 1, "&key=good"));
    expect(minute.status).toBe(429);
    expect(isGoogleQuotaError({ status: 429, headers: minute.headers }, minute.text)).toBe(false);
    fake.knobs.quotaExhausted = true;
    expect((await get(server.url, vol("q", 0, 1, "&key=good"))).status).toBe(429);
    fake.reset();
    expect((await get(server.url, vol("q", 0, 1, "&key=good"))).status).toBe(200);
  });

  it("is served by the shipped adapter the demo uses", async () => {
    const served = await startFakeServer(new GoogleBooksFake({ sizes: { q: 5 } }).handle);
    try {
      const page = (await get(served.url, vol("q", 0, 40))).body as Page;
      expect(page.items).toHaveLength(5);
    } finally {
      await served.close();
    }
  });
});
