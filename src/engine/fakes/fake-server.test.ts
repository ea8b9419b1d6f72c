import { afterEach, describe, expect, it } from "vitest";
import { type FakeServer, startFakeServer } from "./fake-server.ts";

const echo = async (req: Request): Promise<Response> => {
  const url = new URL(req.url);
  const body = req.method === "GET" ? "" : await req.text();
  return Response.json({ path: url.pathname, q: url.searchParams.get("q"), body });
};

describe("startFakeServer", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("serves the app on 127.0.0.1 and records requests", async () => {
    server = await startFakeServer(echo);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const res = await fetch(`${server.url}/books?q=dune&key=k1`, {
      method: "POST",
      headers: { "x-test": "yes" },
      body: "hello",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: "/books", q: "dune", body: "hello" });
    expect(server.requests).toHaveLength(1);
    const [seen] = server.requests;
    expect(seen?.method).toBe("POST");
    expect(seen?.path).toBe("/books");
    expect(seen?.query).toEqual({ q: "dune", key: "k1" });
    expect(seen?.headers["x-test"]).toBe("yes");
    expect(seen?.body).toBe("hello");
    expect(server.stats.total).toBe(1);
  });

  it("accepts a fetch-style handler with extra parameters (e.g. a Hono app's fetch)", async () => {
    const app = { fetch: (_req: Request, _env?: unknown) => new Response("hi") };
    server = await startFakeServer(app.fetch);
    expect(await (await fetch(server.url)).text()).toBe("hi");
  });

  it("answers a status sequence, then lets the app answer", async () => {
    server = await startFakeServer(echo, { faults: { statusSequence: [500, 503, 200, 404] } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.url}/x`);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([500, 503, 200, 404, 200]);
  });

  it("restricts the status sequence to a path pattern", async () => {
    server = await startFakeServer(echo);
    server.faults.set({ statusSequence: [500], statusPath: /^\/volumes/ });
    expect((await fetch(`${server.url}/other`)).status).toBe(200);
    expect((await fetch(`${server.url}/volumes/1`)).status).toBe(500);
    expect((await fetch(`${server.url}/volumes/1`)).status).toBe(200);
  });

  it("injects custom replies and Retry-After on 429/503", async () => {
    server = await startFakeServer(echo, {
      faults: {
        retryAfter: 7,
        statusSequence: [503, { status: 429, body: { error: { message: "slow" } } }, 500],
      },
    });
    const a = await fetch(server.url);
    expect(a.status).toBe(503);
    expect(a.headers.get("retry-after")).toBe("7");
    const b = await fetch(server.url);
    expect(b.status).toBe(429);
    expect(b.headers.get("retry-after")).toBe("7");
    expect(await b.json()).toEqual({ error: { message: "slow" } });
    const c = await fetch(server.url);
    expect(c.headers.get("retry-after")).toBeNull();
    server.faults.statusSequence.push(304);
    expect((await fetch(server.url)).status).toBe(304);
  });

  it("delays answers (fixed, per-request list) so clients can time out", async () => {
    server = await startFakeServer(echo, { faults: { delayMs: 300 } });
    await expect(fetch(server.url, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    server.faults.delayMs = [150, 0];
    let t = performance.now();
    await (await fetch(server.url)).text();
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    t = performance.now();
    await (await fetch(server.url)).text();
    expect(performance.now() - t).toBeLessThan(140);
  });

  it("truncates the body under a larger Content-Length", async () => {
    const big = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ i })) });
    server = await startFakeServer(() => new Response(big), { faults: { truncateBody: 20 } });
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("content-length"))).toBe(big.length);
    await expect(res.text()).rejects.toThrow();
  });

  it("drops connections without answering", async () => {
    server = await startFakeServer(echo, { faults: { dropConnection: true } });
    await expect(fetch(server.url)).rejects.toThrow(/fetch failed/);
    server.faults.set({ dropConnection: false, statusSequence: ["drop"] });
    await expect(fetch(server.url)).rejects.toThrow(/fetch failed/);
    expect((await fetch(server.url)).status).toBe(200);
    expect(server.requests).toHaveLength(3);
  });

  it("emulates a rate limit with 429 + Retry-After", async () => {
    server = await startFakeServer(echo, {
      faults: { rateLimit: { requestsPerSecond: 2, retryAfterSeconds: 3 } },
    });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(server.url);
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get("retry-after");
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(retryAfter).toBe("3");
    expect(server.stats.rateLimited).toBe(1);
  });

  it("counts the maximum concurrency observed", async () => {
    server = await startFakeServer(echo, { faults: { delayMs: 100 } });
    const url = server.url;
    await Promise.all(Array.from({ length: 4 }, () => fetch(url).then((r) => r.text())));
    expect(server.stats.maxConcurrent).toBe(4);
    expect(server.stats.inFlight).toBe(0);
  });

  it("turns a thrown app error into a 500 and resets state", async () => {
    server = await startFakeServer(() => {
      throw new Error("boom");
    });
    const res = await fetch(server.url);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("boom");
    server.faults.set({ dropConnection: true });
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect(server.faults.dropConnection).toBe(false);
  });

  it("closes promptly even with a delayed request pending", async () => {
    server = await startFakeServer(echo, { faults: { delayMs: 10_000 } });
    const pending = fetch(server.url).catch(() => "failed");
    await new Promise((r) => setTimeout(r, 50));
    const t = performance.now();
    await server.close();
    server = undefined;
    expect(performance.now() - t).toBeLessThan(1000);
    expect(await pending).toBe("failed");
  });

  it("answers through a plain handler, with the knobs and counters still applying", async () => {
    server = await startFakeServer(echo, {
      recordRequests: false,
      plain: (req) => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path: req.url.pathname, q: req.url.searchParams.get("q") }),
      }),
    });
    expect(await (await fetch(`${server.url}/a?q=1`)).json()).toEqual({ path: "/a", q: "1" });
    server.faults.set({ statusSequence: [503] });
    expect((await fetch(server.url)).status).toBe(503);
    server.faults.set({ truncateBody: 3 });
    await expect((await fetch(`${server.url}/long`)).text()).rejects.toThrow();
    expect(server.requests).toHaveLength(0);
    expect(server.stats.total).toBe(3);
  });

  it("turns a throwing plain handler into a 500 and records requests when asked", async () => {
    server = await startFakeServer(echo, {
      plain: () => {
        throw new Error("plain boom");
      },
    });
    const res = await fetch(`${server.url}/x?k=v`, { method: "POST", body: "hi" });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("plain boom");
    expect(server.requests[0]?.body).toBe("hi");
    expect(server.requests[0]?.query).toEqual({ k: "v" });
  });
});
