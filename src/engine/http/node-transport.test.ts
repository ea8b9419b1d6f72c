import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../infra/logging/logger.ts";
import { isAttemptTimeout } from "./call-abort.ts";
import { HttpClient } from "./http-client.ts";
import { RetryableHttpError } from "./http-errors.ts";
import { nodeTransport } from "./node-transport.ts";

const JSON_BODY = JSON.stringify({ name: "ケーキ", n: 1 });
let flaky = 0;

/** Routes of the test server; each answers what one fetch behaviour needs. */
function handle(req: IncomingMessage, res: ServerResponse, body: Buffer, base: string): void {
  const url = new URL(req.url ?? "/", base);
  const echo = () => ({
    method: req.method,
    headers: req.headers,
    body: body.toString("utf8"),
    path: url.pathname,
  });
  switch (url.pathname) {
    case "/json":
      res.writeHead(200, { "content-type": "application/json", "x-many": "a" });
      return void res.end(`\ufeff${JSON_BODY}`);
    case "/gzip":
    case "/br":
    case "/deflate":
    case "/deflate-raw": {
      const enc = {
        "/gzip": ["gzip", gzipSync],
        "/br": ["br", brotliCompressSync],
        "/deflate": ["deflate", deflateSync],
        "/deflate-raw": ["deflate", deflateRawSync],
      } as const;
      const [name, zip] = enc[url.pathname];
      res.writeHead(200, { "content-encoding": name });
      return void res.end(zip(Buffer.from(JSON_BODY)));
    }
    case "/echo":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify(echo()));
    case "/see-other":
      res.writeHead(303, { location: "/echo" });
      return void res.end("moved");
    case "/elsewhere":
      // Another origin: the same server under 127.0.0.1 vs localhost.
      res.writeHead(302, { location: `${url.searchParams.get("to")}/echo` });
      return void res.end();
    case "/loop":
      res.writeHead(302, { location: "/loop" });
      return void res.end();
    case "/cut":
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    case "/slow":
      setTimeout(() => {
        if (!res.destroyed) res.end("late");
      }, 2_000);
      return;
    case "/stall-body":
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
      setTimeout(() => {
        if (!res.destroyed) res.end("x".repeat(993));
      }, 2_000);
      return;
    case "/flaky":
      flaky++;
      res.writeHead(flaky % 2 === 1 ? 503 : 200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ flaky }));
    default:
      res.writeHead(404);
      res.end("no");
  }
}

let server: Server;
let base: string;
let otherBase: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks), base));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  otherBase = `http://localhost:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  nodeTransport(new URL(path, base), { method: "GET", headers: new Headers(headers), signal });

describe("nodeTransport", () => {
  it("answers status, headers and UTF-8 text without a BOM, with fetch's default headers", async () => {
    const res = await get("/json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(JSON_BODY);
    const echo = JSON.parse(await (await get("/echo", { "user-agent": "ua/1" })).text());
    expect(echo.headers["user-agent"]).toBe("ua/1");
    expect(echo.headers.accept).toBe("*/*");
    expect(echo.headers["accept-encoding"]).toContain("gzip");
  });

  it.each(["/gzip", "/br", "/deflate", "/deflate-raw"])("decodes %s bodies", async (path) => {
    expect(await (await get(path)).text()).toBe(JSON_BODY);
  });

  it("sends a text body with its content type and length", async () => {
    const res = await nodeTransport(new URL("/echo", base), {
      method: "POST",
      headers: new Headers(),
      body: "a=1",
    });
    const echo = JSON.parse(await res.text());
    expect(echo).toMatchObject({ method: "POST", body: "a=1" });
    expect(echo.headers["content-type"]).toBe("text/plain;charset=UTF-8");
    expect(echo.headers["content-length"]).toBe("3");
  });

  it("follows redirects: 303 turns a POST into a GET without its body", async () => {
    const res = await nodeTransport(new URL("/see-other", base), {
      method: "POST",
      headers: new Headers({ "content-type": "text/plain" }),
      body: "gone",
    });
    const echo = JSON.parse(await res.text());
    expect(echo).toMatchObject({ method: "GET", body: "", path: "/echo" });
    expect(echo.headers["content-type"]).toBeUndefined();
  });

  it("drops Authorization on a redirect to another origin, keeps it on the same one", async () => {
    const same = JSON.parse(
      await (await get(`/elsewhere?to=${base}`, { authorization: "Bearer k" })).text(),
    );
    expect(same.headers.authorization).toBe("Bearer k");
    const other = JSON.parse(
      await (await get(`/elsewhere?to=${otherBase}`, { authorization: "Bearer k" })).text(),
    );
    expect(other.headers.authorization).toBeUndefined();
  });

  it("gives up after 20 redirects like fetch", async () => {
    await expect(get("/loop")).rejects.toThrow("fetch failed");
  });

  it("rejects text() when the body is cut off", async () => {
    const res = await get("/cut");
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it("rejects with the signal's reason when aborted, before or during the response", async () => {
    const before = new AbortController();
    before.abort(new Error("stop"));
    await expect(get("/json", {}, before.signal)).rejects.toThrow("stop");
    const during = new AbortController();
    const pending = get("/slow", {}, during.signal);
    setTimeout(() => during.abort(new Error("timeout")), 50);
    await expect(pending).rejects.toThrow("timeout");
  });

  it("ends an attempt at timeoutMs with an AttemptTimeoutError, waiting for the head or the body", async () => {
    const timed = (path: string) =>
      nodeTransport(new URL(path, base), { method: "GET", headers: new Headers(), timeoutMs: 60 });
    const head = await timed("/slow").catch((e: unknown) => e);
    expect(isAttemptTimeout(head)).toBe(true);
    const res = await timed("/stall-body");
    expect(res.status).toBe(200);
    const body = await res.text().catch((e: unknown) => e);
    expect(isAttemptTimeout(body)).toBe(true);
    // A call that ends in time is not cut later by its timer.
    const quick = await timed("/json");
    await new Promise((r) => setTimeout(r, 100));
    expect(await quick.text()).toBe(JSON_BODY);
  });

  it("a caller's abort ends every call in flight on its signal, head or body, and none after", async () => {
    const caller = new AbortController();
    const done = await get("/json", {}, caller.signal);
    await done.text();
    const onHead = get("/slow", {}, caller.signal).catch((e: unknown) => e);
    const onBody = (await get("/stall-body", {}, caller.signal)).text().catch((e: unknown) => e);
    setTimeout(() => caller.abort(new Error("run stopped")), 50);
    expect(await onHead).toHaveProperty("message", "run stopped");
    expect(await onBody).toHaveProperty("message", "run stopped");
    expect(isAttemptTimeout(await onHead)).toBe(false);
    await expect(get("/json", {}, caller.signal)).rejects.toThrow("run stopped");
  });

  it("limits a body it hands to fetch (a Blob) by timeoutMs too", async () => {
    const err = await nodeTransport(new URL("/slow", base), {
      method: "POST",
      headers: new Headers(),
      body: new Blob(["x"]),
      timeoutMs: 60,
    }).catch((e: unknown) => e);
    expect(isAttemptTimeout(err)).toBe(true);
  });

  it("reports a refused connection as fetch does (TypeError with an ECONNREFUSED cause)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const err = await nodeTransport(new URL(`http://127.0.0.1:${port}/`), {
      method: "GET",
      headers: new Headers(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });
});

describe("HttpClient with transport: node", () => {
  const client = (maxAttempts = 3) =>
    new HttpClient({
      baseUrl: base,
      logger: silentLogger(),
      userAgent: "tidemark-test/1",
      transport: "node",
      timeoutMs: 200,
      retry: { maxAttempts, baseDelayMs: 1, sleep: async () => undefined },
    });

  it("gets validated JSON and retries a 503", async () => {
    flaky = 0;
    const value = await client().getJson("/flaky", { schema: z.object({ flaky: z.number() }) });
    expect(value).toEqual({ flaky: 2 });
  });

  it("times out an attempt and reports it retryable", async () => {
    const err = await client(1)
      .request("/slow")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect((err as Error).message).toMatch(/timed out/);
  });

  it("tells a caller's abort (even a TimeoutError one) from the attempt's own timeout", async () => {
    const err = await client(1)
      .request("/slow", { signal: AbortSignal.timeout(50) })
      .catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(RetryableHttpError);
    expect((err as Error).name).toBe("TimeoutError");
  });

  it("reports a cut-off body as retryable", async () => {
    const err = await client(1)
      .request("/cut")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/cut off|truncated/);
  });
});
