import type { z } from "zod";
import type { Logger } from "../../infra/logging/logger.ts";
import { redactText } from "../../infra/logging/redact.ts";
import { attemptSignal } from "./attempt-signal.ts";
import { isAttemptTimeout } from "./call-abort.ts";
import { HostLimiterPool } from "./host-limiter.ts";
import type {
  GetJsonOptions,
  HttpClientOptions,
  HttpRequestEvent,
  HttpResponse,
  QueryParams,
  RequestOptions,
  SharedLimitOptions,
} from "./http-client-types.ts";
import {
  BadPayloadError,
  ClientHttpError,
  type HttpError,
  type HttpErrorInit,
  NotFoundHttpError,
  type QuotaErrorDetector,
  QuotaExceededError,
  RetryableHttpError,
  type RetryableReason,
  redactedExcerpt,
  redactFreeText,
} from "./http-errors.ts";
import {
  nodeTransport,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./node-transport.ts";
import { parseJsonBody } from "./parse-json-body.ts";
import { resolveUrl } from "./resolve-url.ts";
import { RetryPolicy } from "./retry-policy.ts";

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);
/** Responses meaning the server did not process the request, so even a POST may be resent. */
const NOT_PROCESSED_STATUSES = new Set([429, 503]);

type AttemptResult =
  | { kind: "response"; status: number; headers: Headers; bodyText: string; durationMs: number }
  | {
      kind: "failure";
      reason: "network" | "timeout" | "truncated";
      error: unknown;
      status?: number;
      headers?: Headers;
      durationMs: number;
    };

type Verdict =
  | { kind: "ok"; response: Omit<HttpResponse, "attempts"> }
  | { kind: "fatal"; error: HttpError }
  | { kind: "retry"; error: HttpError; notProcessed: boolean };

/** Default headers of getJson and of request (constants: they key the headers cache). */
const JSON_DEFAULTS: Readonly<Record<string, string>> = { accept: "application/json" };
const NO_DEFAULTS: Readonly<Record<string, string>> = {};

/** The engine knows no API's quota rules: without a detector nothing is a quota error. */
const noQuotaErrors: QuotaErrorDetector = () => false;

/** Status is 2xx. */
function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Retrying these statuses may succeed: server errors, request timeout, throttling. */
function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Low-level error text without the URL (fetch errors keep the useful part in `cause`). */
function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.message}${cause}`;
}

/** True when the connection was refused, i.e. the request never reached the server. */
function isConnectionRefused(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return (
    typeof cause === "object" &&
    cause !== null &&
    "code" in cause &&
    (cause as { code?: unknown }).code === "ECONNREFUSED"
  );
}

/** An injected fetch, else the chosen transport (fetch unless `transport: "node"`). */
function transportOf(options: HttpClientOptions): Transport {
  if (options.fetch !== undefined) return options.fetch;
  if (options.transport === "node") return nodeTransport;
  return globalThis.fetch;
}

/** HTTP client for source APIs: per-host limits, timeouts, retries, typed errors, redacted logs. */
export class HttpClient {
  /** The base URL ending in `/`, so relative targets are appended to its path. */
  readonly #base: string | undefined;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #limiters: HostLimiterPool;
  readonly #sharedLimit: SharedLimitOptions | undefined;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #logger: Logger;
  readonly #userAgent: string;
  readonly #isQuotaError: QuotaErrorDetector;
  readonly #transport: Transport;
  /** The transport enforces each attempt's time limit (TransportRequest.timeoutMs) itself. */
  readonly #timesItself: boolean;
  /** Headers of requests without their own, per defaults object (see #headersFor). */
  readonly #sharedHeaders = new WeakMap<object, Headers>();
  readonly #onRequest: ((event: HttpRequestEvent) => void) | undefined;

  constructor(options: HttpClientOptions) {
    const base = options.baseUrl;
    this.#base = base === undefined || base.endsWith("/") ? base : `${base}/`;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#retry =
      options.retry instanceof RetryPolicy ? options.retry : new RetryPolicy(options.retry);
    this.#limiters = new HostLimiterPool(options.rateLimit);
    this.#sharedLimit = options.sharedLimit;
    this.#headers = options.headers ?? {};
    this.#logger = options.logger;
    this.#userAgent = options.userAgent;
    this.#isQuotaError = options.isQuotaError ?? noQuotaErrors;
    this.#transport = transportOf(options);
    this.#timesItself = this.#transport === nodeTransport;
    this.#onRequest = options.onRequest;
  }

  /** GETs JSON and returns it parsed and validated by `schema` (BadPayloadError otherwise). */
  async getJson<S extends z.ZodType>(
    target: string,
    options: GetJsonOptions<S>,
  ): Promise<z.output<S>> {
    const { schema, ...rest } = options;
    const url = this.resolveUrl(target, rest.query);
    const response = await this.#send(url, { ...rest, method: "GET" }, JSON_DEFAULTS);
    return this.#parse(url, response, schema);
  }

  /** Sends a request with retries and limits; returns accepted responses, throws HttpError otherwise. */
  request(target: string, options: RequestOptions = {}): Promise<HttpResponse> {
    return this.#send(this.resolveUrl(target, options.query), options, NO_DEFAULTS);
  }

  /** The absolute URL a target and query resolve to (relative targets are appended to baseUrl). */
  resolveUrl(target: string, query?: QueryParams | URLSearchParams): URL {
    return resolveUrl(this.#base, target, query);
  }

  async #send(
    url: URL,
    options: RequestOptions,
    defaults: Readonly<Record<string, string>>,
  ): Promise<HttpResponse> {
    const method = (options.method ?? "GET").toUpperCase();
    const headers = this.#headersFor(defaults, options.headers);
    const limiter = this.#limiters.forUrl(url);
    const accept = options.acceptStatus ?? isSuccess;
    const retryUnsafe = options.retryUnsafe ?? IDEMPOTENT_METHODS.has(method);
    const { maxAttempts } = this.#retry;
    // Redacting the URL is done only for a line that is logged: most requests log none.
    let logFields: { method: string; url: string; host: string } | undefined;
    const log = () => {
      logFields ??= { method, url: redactText(url.href), host: url.host };
      return logFields;
    };
    // Test doubles of the logger may lack isLevelEnabled: then every line is built.
    const debug = this.#logger.isLevelEnabled?.("debug") ?? true;

    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      // Each attempt takes its own slot; the backoff sleep below holds none.
      const result = await limiter.run(async () => {
        // Inside the slot, right before sending: a token taken earlier could be spent late,
        // bunching requests that the shared bucket had spaced out.
        await this.#takeSharedToken(options.signal);
        return this.#attempt(url, method, headers, options);
      }, options.signal);
      const status = result.status;
      const verdict = this.#classify(result, accept, { method, url: url.href, attempts: attempt });
      const canRepeat =
        verdict.kind === "retry" && (retryUnsafe || verdict.notProcessed) && attempt < maxAttempts;
      const outcome = verdict.kind === "ok" ? "ok" : canRepeat ? "retry" : "error";
      this.#emit({
        host: url.host,
        method,
        status,
        attempt,
        durationMs: result.durationMs,
        outcome,
      });
      if (debug) {
        this.#logger.debug(
          { ...log(), attempt, status, durationMs: Math.round(result.durationMs) },
          "http attempt",
        );
      }

      if (verdict.kind === "ok") {
        const { response } = verdict;
        return {
          status: response.status,
          headers: response.headers,
          bodyText: response.bodyText,
          attempts: attempt,
        };
      }
      const { error } = verdict;
      if (verdict.kind === "fatal") {
        this.#logFatal(error, log());
        throw error;
      }
      if (!canRepeat) {
        this.#logger.error(
          { ...log(), attempts: attempt, status, error: error.message },
          "http request failed",
        );
        throw error;
      }
      const head =
        result.headers && status !== undefined ? { status, headers: result.headers } : undefined;
      const delayMs = this.#retry.delayMs(attempt, head);
      this.#logger.warn(
        { ...log(), attempt, maxAttempts, status, delayMs, error: error.message },
        "http attempt failed; retrying",
      );
      await this.#retry.sleep(delayMs, options.signal);
    }
  }

  /**
   * The request's headers. Without per-request headers they are the same for every request
   * with these defaults, so they are built once: Headers validates and sorts on each build and
   * iteration, a cost paid per call in a run of 100,000 calls. Nothing mutates them (fetch and
   * the node transport copy them).
   */
  #headersFor(
    defaults: Readonly<Record<string, string>>,
    extra: Readonly<Record<string, string>> | undefined,
  ): Headers {
    const cached = extra === undefined ? this.#sharedHeaders.get(defaults) : undefined;
    if (cached !== undefined) return cached;
    const headers = new Headers({ "user-agent": this.#userAgent });
    for (const source of [this.#headers, defaults, extra ?? {}]) {
      for (const [name, value] of Object.entries(source)) headers.set(name, value);
    }
    if (extra === undefined) this.#sharedHeaders.set(defaults, headers);
    return headers;
  }

  async #takeSharedToken(signal: AbortSignal | undefined): Promise<void> {
    if (!this.#sharedLimit) return;
    const { limiter, key, ratePerSecond, burst } = this.#sharedLimit;
    await limiter.acquire(key, { ratePerSecond, burst }, signal);
  }

  async #attempt(
    url: URL,
    method: string,
    headers: Headers,
    options: RequestOptions,
  ): Promise<AttemptResult> {
    options.signal?.throwIfAborted();
    // The node transport enforces the limit itself; fetch gets a signal that fires at it.
    const guard = this.#timesItself ? undefined : attemptSignal(options.signal, this.#timeoutMs);
    const timedOut = (error: unknown): boolean =>
      guard === undefined ? isAttemptTimeout(error) : guard.timedOut();
    const request: TransportRequest = { method, headers, body: options.body };
    if (guard === undefined) {
      request.signal = options.signal;
      request.timeoutMs = this.#timeoutMs;
    } else request.signal = guard.signal;
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    try {
      let response: TransportResponse;
      try {
        response = await this.#transport(url, request);
      } catch (error) {
        options.signal?.throwIfAborted();
        return {
          kind: "failure",
          reason: timedOut(error) ? "timeout" : "network",
          error,
          durationMs: elapsed(),
        };
      }
      const { status } = response;
      try {
        const bodyText = await response.text();
        return {
          kind: "response",
          status,
          headers: response.headers,
          bodyText,
          durationMs: elapsed(),
        };
      } catch (error) {
        options.signal?.throwIfAborted();
        return {
          kind: "failure",
          reason: timedOut(error) ? "timeout" : "truncated",
          error,
          status,
          headers: response.headers,
          durationMs: elapsed(),
        };
      }
    } finally {
      guard?.dispose();
    }
  }

  #classify(
    result: AttemptResult,
    accept: (status: number) => boolean,
    init: HttpErrorInit,
  ): Verdict {
    if (result.kind === "failure") {
      const { reason, status, error } = result;
      const withCause = { ...init, status, cause: error };
      if (reason === "truncated" && status !== undefined && accept(status)) {
        const bad = new BadPayloadError({ ...withCause, kind: "truncated", bodyText: "" });
        return { kind: "retry", error: bad, notProcessed: false };
      }
      const why: RetryableReason = reason === "timeout" ? "timeout" : "network";
      const detail =
        reason === "timeout"
          ? `timed out after ${this.#timeoutMs} ms`
          : `${reason === "truncated" ? "body cut off" : "network error"}: ${describeFailure(error)}`;
      const retryable = new RetryableHttpError(detail, { ...withCause, reason: why });
      const notProcessed =
        (status !== undefined && NOT_PROCESSED_STATUSES.has(status)) || isConnectionRefused(error);
      return { kind: "retry", error: retryable, notProcessed };
    }
    const { status, headers, bodyText } = result;
    if (accept(status)) return { kind: "ok", response: { status, headers, bodyText } };
    const withStatus = { ...init, status };
    if ((status === 429 || status === 403) && this.#isQuotaError({ status, headers }, bodyText)) {
      return { kind: "fatal", error: new QuotaExceededError({ ...withStatus, bodyText }) };
    }
    if (isRetryableStatus(status)) {
      // The API's own words (a maintenance notice, a rate-limit code) say more than a status.
      const excerpt = redactedExcerpt(bodyText);
      const detail = excerpt ? `HTTP ${status}: ${excerpt}` : `HTTP ${status}`;
      const error = new RetryableHttpError(detail, { ...withStatus, reason: "status" });
      return { kind: "retry", error, notProcessed: NOT_PROCESSED_STATUSES.has(status) };
    }
    if (status === 404) return { kind: "fatal", error: new NotFoundHttpError(withStatus) };
    return { kind: "fatal", error: new ClientHttpError({ ...withStatus, bodyText }) };
  }

  #parse<S extends z.ZodType>(url: URL, response: HttpResponse, schema: S): z.output<S> {
    const { status, attempts, bodyText, headers } = response;
    try {
      return parseJsonBody(bodyText, headers, schema, { url: url.href, status, attempts });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.#logger.warn({ method: "GET", url: redactText(url.href), error }, "http bad payload");
      throw err;
    }
  }

  #logFatal(error: HttpError, log: Record<string, unknown>): void {
    const fields = { ...log, attempts: error.attempts, status: error.status, error: error.message };
    // A 404 is often an expected answer ("no such book"); the caller decides if it matters.
    if (error instanceof NotFoundHttpError) this.#logger.debug(fields, "http not found");
    else this.#logger.warn(fields, "http request rejected");
  }

  #emit(event: HttpRequestEvent): void {
    if (!this.#onRequest) return;
    try {
      this.#onRequest(event);
    } catch (err) {
      // Metrics must never break a fetch.
      this.#logger.warn(
        { error: redactFreeText(describeFailure(err)) },
        "http onRequest hook threw",
      );
    }
  }
}
