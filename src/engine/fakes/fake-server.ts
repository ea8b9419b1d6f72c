import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import {
  type DelaySetting,
  FaultController,
  type FaultOptions,
  type PathPattern,
  type RateLimitFault,
  type StatusStep,
} from "./fake-faults.ts";
import { type PlainFakeAnswer, sendPlain, sendWeb } from "./fake-send.ts";
import { FaultGate } from "./fault-gate.ts";

export type {
  DelaySetting,
  FaultOptions,
  PathPattern,
  PlainFakeAnswer,
  RateLimitFault,
  StatusStep,
};
export { FaultController };

/** A fake of an outside API: Web Request in, Web Response out (a Hono app's `fetch` fits). */
export type FakeHandler = (request: Request) => Response | Promise<Response>;

/** What a plain handler sees of a request: no Web Request is built for it. */
export interface PlainFakeRequest {
  method: string;
  url: URL;
  /** Node's lower-cased request headers. */
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A fake answering without Web Request/Response objects (several times cheaper per request,
 * for benchmarks of many thousand calls); the fault knobs, counters and request log still apply.
 */
export type PlainFakeHandler = (
  request: PlainFakeRequest,
) => PlainFakeAnswer | Promise<PlainFakeAnswer>;

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
  /** Answers instead of `app` when given (the fast path; see PlainFakeHandler). */
  plain?: PlainFakeHandler;
  /**
   * Keep every request in `requests` (default true). Off for long benchmarks: the log would
   * grow by one entry per call.
   */
  recordRequests?: boolean;
}

const EMPTY_BODY = Buffer.alloc(0);

/** Reads the whole request body. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  // No length and no chunked encoding: HTTP/1.1 says there is no body (a plain GET).
  const declared = req.headers["content-length"];
  if (
    req.headers["transfer-encoding"] === undefined &&
    (declared === undefined || declared === "0")
  )
    return EMPTY_BODY;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts `app` on 127.0.0.1 with an ephemeral port (or the given host and port), with fault injection and request logging. */
export async function startFakeServer(
  app: FakeHandler,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  const faults = new FaultController(options.faults);
  const requests: RecordedRequest[] = [];
  const stats: FakeServerStats = { total: 0, inFlight: 0, maxConcurrent: 0, rateLimited: 0 };
  const gate = new FaultGate(faults, stats);

  const record = options.recordRequests ?? true;

  const handle = async (req: IncomingMessage, res: ServerResponse, base: string): Promise<void> => {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", base);
    const method = req.method ?? "GET";
    const receivedAt = Date.now();
    // Built only when the log keeps it or a delay function reads it.
    let recorded: RecordedRequest | undefined;
    const recordedOf = (): RecordedRequest => {
      recorded ??= recordOf(req, url, method, body, receivedAt);
      return recorded;
    };
    if (record) requests.push(recordedOf());

    if (await gate.answered(req, res, { method, path: url.pathname, recorded: recordedOf })) return;
    if (options.plain) {
      const answer = await answerPlain(options.plain, { method, url, headers: req.headers, body });
      if (!res.destroyed) sendPlain(res, method, answer, faults.truncateBody);
      return;
    }
    const response = await answerWeb(app, req, res, { method, url, body });
    if (res.destroyed) return;
    await sendWeb(res, method, response, faults.truncateBody);
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
      gate.reset();
    },
    close() {
      gate.close();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** What the request log keeps of one request. */
function recordOf(
  req: IncomingMessage,
  url: URL,
  method: string,
  body: Buffer,
  receivedAt: number,
): RecordedRequest {
  return {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    searchParams: url.searchParams,
    headers: Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
    ),
    body: body.toString("utf8"),
    receivedAt,
  };
}

/** The plain handler's answer; a throw becomes a 500 like the app's. */
async function answerPlain(
  handler: PlainFakeHandler,
  request: PlainFakeRequest,
): Promise<PlainFakeAnswer> {
  try {
    return await handler(request);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { status: 500, headers: {}, body: `fake app error: ${message}` };
  }
}

/** The app's answer to a Web Request built from the Node request; a throw becomes a 500. */
async function answerWeb(
  app: FakeHandler,
  req: IncomingMessage,
  res: ServerResponse,
  seen: { method: string; url: URL; body: Buffer },
): Promise<Response> {
  const { method, url, body } = seen;
  // The app sees the abort when the client goes away, like a real handler would.
  const aborted = new AbortController();
  res.once("close", () => aborted.abort());
  const hasBody = method !== "GET" && method !== "HEAD";
  const headers = Object.entries(req.headers).map(([k, v]): [string, string] => [
    k,
    Array.isArray(v) ? v.join(", ") : (v ?? ""),
  ]);
  const request = new Request(url, {
    method,
    headers,
    // A plain Uint8Array: BodyInit's DOM typing (pulled in by some dependencies) refuses Buffer.
    body: hasBody ? new Uint8Array(body) : undefined,
    signal: aborted.signal,
  });
  try {
    return await app(request);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return new Response(`fake app error: ${message}`, { status: 500 });
  }
}
