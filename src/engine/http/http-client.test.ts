import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../infra/logging/logger.ts";
import { type FakeServer, startFakeServer } from "../fakes/fake-server.ts";
import { HttpClient } from "./http-client.ts";
import type { HttpClientOptions, HttpRequestEvent } from "./http-client-types.ts";
import {
  BadPayloadError,
  ClientHttpError,
  HttpError,
  NotFoundHttpError,
  QuotaExceededError,
  RetryableHttpError,
} from "./http-errors.ts";

const Volumes = z.object({
  totalItems: z.number(),
  items: z.array(z.object({ id: z.string(), volumeInfo: z.object({ title: z.string() }) })),
});

const volumes = {
  totalItems: 2,
  items: [
    { id: "a", volumeInfo: { title: "Dune" } },
    { id: "b", volumeInfo: { title: "Emma" } },
  ],
};

const quotaBody = {
  error: {
    code: 429,
    message: "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'",
    errors: [{ reason: "rateLimitExceeded", domain: "usageLimits" }],
  },
};

/** A tiny Google-Books-like fake: /volumes answers the fixture, /echo reflects the query. */
const app = (req: Request): Response => {
  const url = new URL(req.url);
  if (url.pathname === "/books/v1/volumes") return Response.json(volumes);
  if (url.pathname === "/bad")
    return Response.json({
      ...volumes,
      items: [volumes.items[0], { id: "b", volumeInfo: { title: 42 } }],
    });
  if (url.pathname === "/not-json") return new Response("<html>oops</html>", { status: 200 });
  if (url.pathname === "/echo")
    return Response.json({ query: url.search, ua: req.headers.get("user-agent") });
  return new Response("no such thing", { status: 404 });
};

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer(app);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.reset();
});

/** A client against the fake with sleeps recorded instead of waited. */
function makeClient(overrides: Partial<HttpClientOptions> = {}) {
  const sleeps: number[] = [];
  const client = new HttpClient({
    baseUrl: `${server.url}/books/v1`,
    logger: silentLogger(),
    userAgent: "tidemark-test/1",
    retry: {
      maxAttempts: 3,
      baseDelayMs: 10,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    ...overrides,
  });
  return { client, sleeps };
}

/** Runs `fn` and returns what it threw. */
async function caught(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("HttpClient.getJson", () => {
  it("returns the validated value, joining baseUrl and path and adding the query", async () => {
    const { client } = makeClient();
    const value = await client.getJson("/volumes", { schema: Volumes, query: { q: "dune" } });
    expect(value.items.map((i) => i.volumeInfo.title)).toEqual(["Dune", "Emma"]);
    const [seen] = server.requests;
    expect(seen?.path).toBe("/books/v1/volumes");
    expect(seen?.query).toEqual({ q: "dune" });
    expect(seen?.headers["user-agent"]).toBe("tidemark-test/1");
    expect(seen?.headers.accept).toBe("application/json");
  });

  it("encodes query values with URLSearchParams (arrays repeat, undefined omitted)", async () => {
    const { client } = makeClient();
    const url = client.resolveUrl("/v", { q: "a b&c", n: 3, tag: ["x", "y"], skip: undefined });
    expect(url.search).toBe("?q=a+b%26c&n=3&tag=x&tag=y");
    expect(client.resolveUrl(`${server.url}/abs`).href).toBe(`${server.url}/abs`);
  });

  it("keeps a target's own query before the added one, and adds no '?' for an empty query", () => {
    const { client } = makeClient();
    const url = client.resolveUrl(`${server.url}/abs?a=1&b=x%20y`, { c: "é", a: 2 });
    expect(url.search).toBe("?a=1&b=x+y&c=%C3%A9&a=2");
    expect(client.resolveUrl("/v", { skip: undefined, none: null }).href).toBe(
      `${server.url}/books/v1/v`,
    );
    expect(client.resolveUrl("v#part", { a: 1 }).href).toBe(`${server.url}/books/v1/v?a=1#part`);
  });

  it("retries 500s then succeeds", async () => {
    server.faults.set({ statusSequence: [500, 502] });
    const { client, sleeps } = makeClient();
    const value = await client.getJson("volumes", { schema: Volumes });
    expect(value.totalItems).toBe(2);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeLessThan(100);
  });

  it("honours Retry-After on 503", async () => {
    server.faults.set({ statusSequence: [503], retryAfter: 1 });
    const { client, sleeps } = makeClient();
    await client.getJson("volumes", { schema: Volumes });
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(1000);
  });

  it("retries a dropped connection", async () => {
    server.faults.set({ statusSequence: ["drop"] });
    const { client, sleeps } = makeClient();
    await client.getJson("volumes", { schema: Volumes });
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it("throws QuotaExceededError on a quota 429 without retrying", async () => {
    server.faults.set({ statusSequence: [{ status: 429, body: quotaBody }] });
    // The API's client supplies the rule (books passes Google's); this one reads the body.
    const { client, sleeps } = makeClient({
      isQuotaError: (_res, body) => body.includes("Queries per day"),
    });
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect((err as QuotaExceededError).status).toBe(429);
    expect((err as QuotaExceededError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
  });

  it("uses a custom quota detector", async () => {
    server.faults.set({ statusSequence: [{ status: 403, headers: { "x-quota": "gone" } }] });
    const { client } = makeClient({
      isQuotaError: (res) => res.headers.get("x-quota") === "gone",
    });
    await expect(client.getJson("volumes", { schema: Volumes })).rejects.toBeInstanceOf(
      QuotaExceededError,
    );
  });

  it("has no vendor rule of its own: without a detector a quota 429 is retried", async () => {
    server.faults.set({ statusSequence: [{ status: 429, body: quotaBody }] });
    const { client, sleeps } = makeClient();
    await expect(client.getJson("volumes", { schema: Volumes })).resolves.toEqual(volumes);
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it("retries a plain 429 (no quota meaning)", async () => {
    server.faults.set({ statusSequence: [429, 429] });
    const { client, sleeps } = makeClient();
    await client.getJson("volumes", { schema: Volumes });
    expect(sleeps).toHaveLength(2);
  });

  it("throws NotFoundHttpError on 404 without retrying", async () => {
    const { client, sleeps } = makeClient();
    const err = await caught(() => client.getJson("/nope", { schema: Volumes }));
    expect(err).toBeInstanceOf(NotFoundHttpError);
    expect((err as NotFoundHttpError).status).toBe(404);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
  });

  it("throws ClientHttpError on 400", async () => {
    server.faults.set({ statusSequence: [{ status: 400, body: "missing parameter q" }] });
    const { client } = makeClient();
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(ClientHttpError);
    expect((err as ClientHttpError).status).toBe(400);
    expect((err as ClientHttpError).message).toContain("missing parameter q");
    expect(server.requests).toHaveLength(1);
  });

  it("throws BadPayloadError on a truncated body after retrying", async () => {
    server.faults.set({ truncateBody: 15 });
    const { client } = makeClient();
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(BadPayloadError);
    expect((err as BadPayloadError).kind).toBe("truncated");
    expect((err as BadPayloadError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it("throws BadPayloadError naming the bad field on a schema mismatch", async () => {
    const { client } = makeClient({ baseUrl: server.url });
    const err = await caught(() => client.getJson("/bad", { schema: Volumes }));
    expect(err).toBeInstanceOf(BadPayloadError);
    const bad = err as BadPayloadError;
    expect(bad.kind).toBe("schema");
    expect(bad.issues).toContain("items[1].volumeInfo.title");
    expect(bad.message).toContain("items[1].volumeInfo.title");
    expect(bad.message).not.toContain("\n");
    expect(bad.bodyExcerpt).toContain("totalItems");
    expect(server.requests).toHaveLength(1);
  });

  it("throws BadPayloadError on a non-JSON body", async () => {
    const { client } = makeClient({ baseUrl: server.url });
    const err = await caught(() => client.getJson("/not-json", { schema: Volumes }));
    expect(err).toBeInstanceOf(BadPayloadError);
    expect((err as BadPayloadError).kind).toBe("invalid-json");
    expect((err as BadPayloadError).bodyExcerpt).toBe("<html>oops</html>");
  });

  it("throws RetryableHttpError after every attempt timed out", async () => {
    server.faults.set({ delayMs: 400 });
    const { client, sleeps } = makeClient({ timeoutMs: 80 });
    const started = performance.now();
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect((err as RetryableHttpError).reason).toBe("timeout");
    expect((err as RetryableHttpError).attempts).toBe(3);
    expect((err as RetryableHttpError).retryable).toBe(true);
    expect(sleeps).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("throws RetryableHttpError with the last status after retries are exhausted", async () => {
    server.faults.set({ statusSequence: [500, 500, 500] });
    const { client } = makeClient();
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect((err as HttpError).status).toBe(500);
    expect((err as HttpError).message).toMatch(/after 3 attempts: HTTP 500/);
  });

  it("says what the API answered on its last attempt, secrets masked", async () => {
    const body = '{"error":"maintenance","error_description":"back at 10:00","key":"SEKRET-1"}';
    server.faults.set({ statusSequence: [503, 503, { status: 503, body }] });
    const { client } = makeClient();
    const err = await caught(() => client.getJson("volumes", { schema: Volumes }));
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect((err as HttpError).message).toContain(
      'after 3 attempts: HTTP 503: {"error":"maintenance","error_description":"back at 10:00"',
    );
    expect((err as HttpError).message).not.toContain("SEKRET-1");
  });
});

describe("HttpClient.request", () => {
  it("returns status, headers and body and reports each attempt to onRequest", async () => {
    server.faults.set({ statusSequence: [500] });
    const events: HttpRequestEvent[] = [];
    const { client } = makeClient({ onRequest: (e) => events.push(e) });
    const res = await client.request("volumes");
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(2);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(res.bodyText)).toEqual(volumes);
    expect(events.map((e) => [e.status, e.attempt, e.outcome])).toEqual([
      [500, 1, "retry"],
      [200, 2, "ok"],
    ]);
    expect(events[0]?.host).toBe(`127.0.0.1:${server.port}`);
    expect(events[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("returns statuses accepted by acceptStatus instead of throwing", async () => {
    server.faults.set({ statusSequence: [304] });
    const { client } = makeClient();
    const res = await client.request("volumes", { acceptStatus: (s) => s === 304 || s === 200 });
    expect(res.status).toBe(304);
  });

  it("does not resend a POST after a 500, but does after a 503", async () => {
    const { client } = makeClient();
    server.faults.set({ statusSequence: [500, 200] });
    await expect(client.request("/x", { method: "POST", body: "a=1" })).rejects.toBeInstanceOf(
      RetryableHttpError,
    );
    expect(server.requests).toHaveLength(1);
    server.reset();
    server.faults.set({ statusSequence: [503] });
    await expect(client.request("volumes", { method: "POST", body: "a=1" })).resolves.toMatchObject(
      {
        status: 200,
      },
    );
    expect(server.requests.map((r) => r.body)).toEqual(["a=1", "a=1"]);
  });

  it("stops waiting and retrying when the caller aborts", async () => {
    server.faults.set({ statusSequence: [500, 500, 500] });
    const client = new HttpClient({
      baseUrl: server.url,
      logger: silentLogger(),
      userAgent: "t",
      retry: { maxAttempts: 5, baseDelayMs: 60_000, random: () => 0.99 },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop requested")), 100);
    const started = performance.now();
    await expect(client.request("/x", { signal: controller.signal })).rejects.toThrow(
      "stop requested",
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it("aborts an in-flight attempt when the caller aborts", async () => {
    server.faults.set({ delayMs: 5_000 });
    const { client, sleeps } = makeClient();
    const err = await caught(() => client.request("volumes", { signal: AbortSignal.timeout(100) }));
    expect((err as Error).name).toBe("TimeoutError");
    expect(err).not.toBeInstanceOf(HttpError);
    expect(sleeps).toHaveLength(0);
  });
});

describe("HttpClient rate limits", () => {
  it("spaces requests to requestsPerSecond per host", async () => {
    const { client } = makeClient({ rateLimit: { requestsPerSecond: 10 } });
    const n = 6;
    const started = performance.now();
    await Promise.all(Array.from({ length: n }, () => client.request("volumes")));
    const elapsed = performance.now() - started;
    // n requests at 10/s: the first at once, then one per 100 ms.
    expect(elapsed).toBeGreaterThanOrEqual(((n - 1) / 10) * 1000 - 30);
    expect(elapsed).toBeLessThan(2000);
    // Request i arrives no sooner than i × 100 ms after the first (a busy machine may deliver two
    // late ones close together; what the limiter promises is the rate, counted from the start).
    const times = server.requests.map((r) => r.receivedAt);
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[0]!).toBeGreaterThanOrEqual(i * 100 - 60);
    }
  });

  it("keeps at most `concurrency` requests in flight per host", async () => {
    server.faults.set({ delayMs: 80 });
    const { client } = makeClient({ rateLimit: { concurrency: 2 } });
    await Promise.all(Array.from({ length: 6 }, () => client.request("volumes")));
    expect(server.requests).toHaveLength(6);
    expect(server.stats.maxConcurrent).toBe(2);
  });

  it("applies per-host overrides", async () => {
    server.faults.set({ delayMs: 50 });
    const { client } = makeClient({
      rateLimit: { concurrency: 1, perHost: { [`127.0.0.1:${server.port}`]: { concurrency: 3 } } },
    });
    await Promise.all(Array.from({ length: 6 }, () => client.request("volumes")));
    expect(server.stats.maxConcurrent).toBe(3);
  });

  it("takes a shared token before every attempt, retries included", async () => {
    server.faults.set({ statusSequence: [503] });
    const taken: unknown[] = [];
    const limiter = {
      acquire: async (key: string, limit: object) => {
        // A token is taken before the request it pays for is sent.
        taken.push({ key, limit, sentBefore: server.requests.length });
      },
    };
    const { client } = makeClient({
      sharedLimit: { limiter, key: "api:k1", ratePerSecond: 2, burst: 3 },
    });
    await client.request("volumes");
    const limit = { ratePerSecond: 2, burst: 3 };
    expect(taken).toEqual([
      { key: "api:k1", limit, sentBefore: 0 },
      { key: "api:k1", limit, sentBefore: 1 },
    ]);
  });

  it("sends nothing while waiting for a shared token, and stops waiting on abort", async () => {
    const limiter = {
      acquire: (_key: string, _limit: object, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    };
    const { client } = makeClient({
      sharedLimit: { limiter, key: "api:k1", ratePerSecond: 1, burst: 1 },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop requested")), 50);
    await expect(client.request("volumes", { signal: controller.signal })).rejects.toThrow(
      "stop requested",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("stays under an API's rate limit (no 429 from the fake's emulation)", async () => {
    server.faults.set({ rateLimit: { requestsPerSecond: 5 } });
    const { client, sleeps } = makeClient({ rateLimit: { requestsPerSecond: 5 } });
    await Promise.all(Array.from({ length: 4 }, () => client.request("volumes")));
    expect(server.stats.rateLimited).toBe(0);
    expect(sleeps).toHaveLength(0);
  });
});

describe("HttpClient secret redaction", () => {
  const SECRET = "S3CR3T-value";

  /** A client logging at debug level into `lines`, sending the secret as key and bearer token. */
  function leakyClient(lines: string[]) {
    const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(line) });
    return makeClient({
      baseUrl: server.url,
      logger,
      headers: { Authorization: `Bearer ${SECRET}` },
    }).client;
  }

  /** Everything an operator could see about an error. */
  function visible(err: unknown): string {
    const e = err as HttpError;
    return [e.message, e.stack, e.url, JSON.stringify(e), String(e)].join("\n");
  }

  it("never logs or reports the key or the bearer token", async () => {
    const lines: string[] = [];
    const client = leakyClient(lines);
    server.faults.set({ statusSequence: [500, 503, 500] });
    const err = await caught(() =>
      client.request(`/books/v1/volumes?key=${SECRET}`, {
        query: { apiKey: SECRET, applicationId: SECRET, q: "x" },
      }),
    );
    expect(err).toBeInstanceOf(RetryableHttpError);
    // The secrets were really sent…
    const [seen] = server.requests;
    expect(seen?.query.key).toBe(SECRET);
    expect(seen?.headers.authorization).toBe(`Bearer ${SECRET}`);
    // …but appear nowhere in logs or errors.
    const logged = lines.join("");
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(logged).toContain("http attempt failed; retrying");
    expect(logged).toContain("http request failed");
    expect(logged).toContain("key=[REDACTED]");
    for (const text of [logged, visible(err)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(`key=${SECRET}`);
      expect(text).not.toContain(`Bearer ${SECRET}`);
    }
  });

  it("redacts secrets echoed in response bodies", async () => {
    const lines: string[] = [];
    const client = leakyClient(lines);
    const echoed = `bad request key=${SECRET} {"apiKey":"${SECRET}"} Authorization: Bearer ${SECRET}`;
    server.faults.set({
      statusSequence: [
        { status: 400, body: echoed },
        { status: 200, body: echoed },
      ],
    });
    const client400 = await caught(() => client.request(`/x?key=${SECRET}`));
    expect(client400).toBeInstanceOf(ClientHttpError);
    const payload = await caught(() => client.getJson(`/x?key=${SECRET}`, { schema: Volumes }));
    expect(payload).toBeInstanceOf(BadPayloadError);
    for (const text of [lines.join(""), visible(client400), visible(payload)]) {
      expect(text).not.toContain(SECRET);
    }
    expect((client400 as ClientHttpError).bodyExcerpt).toContain("bad request key=[REDACTED]");
  });

  it("redacts the URL of an invalid target", async () => {
    const { client } = makeClient({ baseUrl: undefined });
    const err = await caught(() => client.request(`not a url?key=${SECRET}`));
    expect(err).toBeInstanceOf(TypeError);
    expect(visible(err)).not.toContain(SECRET);
  });
});
