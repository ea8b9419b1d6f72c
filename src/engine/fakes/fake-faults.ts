import { NULL_BODY_STATUSES } from "./fake-send.ts";

import type { RecordedRequest } from "./fake-server.ts";

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

/** True when `path` matches the pattern (prefix for strings). */
export function matchesPath(pattern: PathPattern | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  return typeof pattern === "string" ? path.startsWith(pattern) : pattern.test(path);
}

/** The JSON error answer used for injected statuses. */
export function injectedResponse(
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
