import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A fake of an outside API: Web Request in, Web Response out (a Hono app's `fetch` fits). */
export type FakeHandler = (request: Request) => Response | Promise<Response>;

/** Path filter: a string matches paths starting with it; a RegExp is tested on the path. */
export type PathPattern = string | RegExp;

/** One scripted answer: a status (200 = let the app answer), a custom reply, or a dropped socket. */
export type StatusStep =
  | number
  | "drop"
  | { status: number; body?: string | object; headers?: Readonly<Record<string, string>> };

/** Server-side delay before answering: fixed, consumed per request from a list, or computed. */
export type DelaySetting = number | readonly number[] | ((request: RecordedRequest) => number);

/** Emulated API rate limit: excess requests get 429 with `Retry-After`. */
export interface RateLimitFault {
  requestsPerSecond: number;
  /** Value of `Retry-After` on the 429 (default 1). */
  retryAfterSeconds?: number;
}

/** Fault knobs; all off by default. */
export interface FaultOptions {
  /** Statuses for the next matching requests, consumed in order; then the app answers. */
  statusSequence?: readonly StatusStep[];
  /** Only requests whose path matches consume `statusSequence`. */
  statusPath?: PathPattern;
  delayMs?: DelaySetting;
  /** Send only this many body bytes under a larger Content-Length, then destroy the socket. */
  truncateBody?: number;
  rateLimit?: RateLimitFault;
  /** `Retry-After` header value added to injected 429 and 503 answers. */
  retryAfter?: number | string;
  /** Destroy the socket of every request without answering. */
  dropConnection?: boolean;
}

/** The live fault settings of a running fake server; change fields any time. */
export class FaultController {
  statusSequence: StatusStep[] = [];
  statusPath: PathPattern | undefined = undefined;
  delayMs: DelaySetting = 0;
  truncateBody: number | undefined = undefined;
  rateLimit: RateLimitFault | undefined = undefined;
  retryAfter: number | string | undefined = undefined;
  dropConnection = false;

  constructor(initial: FaultOptions = {}) {
    this.set(initial);
  }

  /** Changes the given knobs, leaving the others as they are. */
  set(options: FaultOptions): this {
    if ("statusSequence" in options) this.statusSequence = [...(options.statusSequence ?? [])];
    if ("statusPath" in options) this.statusPath = options.statusPath;
    if ("delayMs" in options) {
      const d = options.delayMs ?? 0;
      // Copy lists: they are consumed as requests arrive.
      this.delayMs = Array.isArray(d) ? [...d] : d;
    }
    if ("truncateBody" in options) this.truncateBody = options.truncateBody;
    if ("rateLimit" in options) this.rateLimit = options.rateLimit;
    if ("retryAfter" in options) this.retryAfter = options.retryAfter;
    if ("dropConnection" in options) this.dropConnection = options.dropConnection ?? false;
    return this;
  }

  /** Turns every fault off. */
  reset(): this {
    return this.set({
      statusSequence: [],
      statusPath: undefined,
      delayMs: 0,
      truncateBody: undefined,
      rateLimit: undefined,
      retryAfter: undefined,
      dropConnection: false,
    });
  }
}

/** What the fake server saw of one request. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters (the last value wins; see `searchParams` for repeated ones). */
  query: Record<string, string>;
  searchParams: URLSearchParams;
  /** Lower-cased names; repeated headers joined by Node's rules. */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds since the epoch. */
  receivedAt: number;
}

/** Live counters of a fake server. */
export interface FakeServerStats {
  /** Requests received. */
  total: number;
  /** Requests being handled now. */
  inFlight: number;
  /** Highest `inFlight` observed. */
  maxConcurrent: number;
  /** Requests answered 429 by the rate-limit emulation. */
  rateLimited: number;
}

/** A running fake server. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly faults: FaultController;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  readonly stats: FakeServerStats;
  /** Forgets requests and counters and turns faults off. */
  reset(): void;
  /** Stops the server, cutting open connections. */
  close(): Promise<void>;
}

/** Options of startFakeServer. */
export interface FakeServerOptions {
  faults?: FaultOptions;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** True when `path` matches the pattern (prefix for strings). */
function matchesPath(pattern: PathPattern | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  return typeof pattern === "string" ? path.startsWith(pattern) : pattern.test(path);
}

/** Waits `ms` unless the signal aborts first (then resolves early: the server is closing). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Reads the whole request body. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** The JSON error answer used for injected statuses. */
function injectedResponse(
  step: Exclude<StatusStep, "drop">,
  retryAfter: number | string | undefined,
): Response {
  const status = typeof step === "number" ? step : step.status;
  const headers = new Headers({ "content-type": "application/json" });
  if (retryAfter !== undefined && (status === 429 || status === 503)) {
    headers.set("retry-after", String(retryAfter));
  }
  let body = JSON.stringify({ error: { code: status, message: "injected fault" } });
  if (typeof step === "object") {
    if (step.body !== undefined)
      body = typeof step.body === "string" ? step.body : JSON.stringify(step.body);
    for (const [name, value] of Object.entries(step.headers ?? {})) headers.set(name, value);
  }
  // The Response constructor rejects a body (even "") on null-body statuses.
  return new Response(NULL_BODY_STATUSES.has(status) ? null : body, { status, headers });
}

/** Starts `app` on 127.0.0.1 with an ephemeral port (or the given host and port), with fault injection and request logging. */
export async function startFakeServer(
  app: FakeHandler,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  const faults = new FaultController(options.faults);
  const requests: RecordedRequest[] = [];
  const stats: FakeServerStats = { total: 0, inFlight: 0, maxConcurrent: 0, rateLimited: 0 };
  let acceptedAt: number[] = [];
  const closing = new AbortController();

  /** Sliding-window check of the emulated rate limit; records the request when accepted. */
  const overRateLimit = (limit: RateLimitFault, now: number): boolean => {
    const cap = Math.max(1, Math.floor(limit.requestsPerSecond));
    const windowMs = (cap * 1000) / limit.requestsPerSecond;
    acceptedAt = acceptedAt.filter((t) => now - t < windowMs);
    if (acceptedAt.length >= cap) return true;
    acceptedAt.push(now);
    return false;
  };

  const nextDelay = (recorded: RecordedRequest): number => {
    const d = faults.delayMs;
    if (typeof d === "number") return d;
    if (typeof d === "function") return d(recorded);
    const list = [...d];
    const next = list.shift() ?? 0;
    faults.delayMs = list;
    return next;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, base: string): Promise<void> => {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", base);
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      searchParams: url.searchParams,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(", ") : (v ?? ""),
        ]),
      ),
      body: body.toString("utf8"),
      receivedAt: Date.now(),
    };
    requests.push(recorded);

    if (faults.dropConnection) {
      req.socket.destroy();
      return;
    }
    if (faults.rateLimit && overRateLimit(faults.rateLimit, Date.now())) {
      stats.rateLimited++;
      const retryAfter = faults.rateLimit.retryAfterSeconds ?? 1;
      await send(res, recorded.method, injectedResponse(429, retryAfter), faults.truncateBody);
      return;
    }
    await pause(nextDelay(recorded), closing.signal);
    if (res.destroyed) return;

    let response: Response;
    const step = matchesPath(faults.statusPath, url.pathname)
      ? faults.statusSequence.shift()
      : undefined;
    if (step === "drop") {
      req.socket.destroy();
      return;
    }
    if (step !== undefined && !(typeof step === "number" && step === 200)) {
      response = injectedResponse(step, faults.retryAfter);
    } else {
      // The app sees the abort when the client goes away, like a real handler would.
      const aborted = new AbortController();
      res.once("close", () => aborted.abort());
      const hasBody = recorded.method !== "GET" && recorded.method !== "HEAD";
      const request = new Request(url, {
        method: recorded.method,
        headers: Object.entries(recorded.headers),
        // A plain Uint8Array: BodyInit's DOM typing (pulled in by some dependencies) refuses Buffer.
        body: hasBody && body !== undefined ? new Uint8Array(body) : undefined,
        signal: aborted.signal,
      });
      try {
        response = await app(request);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        response = new Response(`fake app error: ${message}`, { status: 500 });
      }
    }
    if (res.destroyed) return;
    await send(res, recorded.method, response, faults.truncateBody);
  };

  const server = createServer((req, res) => {
    stats.total++;
    stats.inFlight++;
    stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.inFlight);
    res.once("close", () => {
      stats.inFlight--;
    });
    handle(req, res, `http://${req.headers.host ?? "127.0.0.1"}`).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.statusCode = 500;
      res.end(`fake server error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== "0.0.0.0" ? options.host : "127.0.0.1";

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    faults,
    requests,
    stats,
    reset() {
      requests.length = 0;
      Object.assign(stats, { total: 0, maxConcurrent: stats.inFlight, rateLimited: 0 });
      acceptedAt = [];
      faults.reset();
    },
    close() {
      closing.abort();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** Writes a Web Response to Node, optionally cutting the body after `truncateAt` bytes. */
async function send(
  res: ServerResponse,
  method: string,
  response: Response,
  truncateAt: number | undefined,
): Promise<void> {
  const bytes = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name === "content-length" || name === "transfer-encoding" || name === "set-cookie")
      continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  const bodyless = method === "HEAD" || NULL_BODY_STATUSES.has(response.status);
  if (bodyless) {
    res.end();
    return;
  }
  if (truncateAt === undefined) {
    res.setHeader("content-length", bytes.length);
    res.end(bytes);
    return;
  }
  // Promise more bytes than we send, then cut the connection: the client sees a short body.
  const sent = Math.max(0, Math.min(truncateAt, bytes.length));
  res.setHeader("content-length", Math.max(bytes.length, sent + 1));
  res.flushHeaders();
  res.write(bytes.subarray(0, sent), () => res.socket?.destroy());
}
