import type { z } from "zod";
import type { Logger } from "../../infra/logging/logger.ts";
import type { RateLimitOptions } from "./host-limiter.ts";
import type { QuotaErrorDetector } from "./http-errors.ts";
import type { TransportKind } from "./node-transport.ts";
import type { RetryPolicy, RetryPolicyOptions } from "./retry-policy.ts";

/** One query-parameter value; arrays repeat the parameter, null/undefined omit it. */
export type QueryValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[];

/** Query parameters, appended with URLSearchParams. */
export type QueryParams = Readonly<Record<string, QueryValue>>;

/** Reported once per attempt to the `onRequest` hook (metrics). */
export interface HttpRequestEvent {
  host: string;
  method: string;
  /** Undefined when no response arrived (network error, timeout). */
  status: number | undefined;
  /** 1-based attempt number. */
  attempt: number;
  durationMs: number;
  /** `ok`: returned; `retry`: another attempt follows; `error`: the request failed. */
  outcome: "ok" | "retry" | "error";
}

/** A limiter shared beyond this client, e.g. SharedRateLimiter (one bucket for all processes). */
export interface SharedTokenLimiter {
  /** Waits for and takes one token of `key`'s bucket; rejects when `signal` aborts. */
  acquire(
    key: string,
    limit: { ratePerSecond: number; burst: number },
    signal?: AbortSignal,
  ): Promise<void>;
}

/** One token of a shared bucket is taken before every attempt (retries included). */
export interface SharedLimitOptions {
  limiter: SharedTokenLimiter;
  /** The bucket, typically one per API credential (a hash of it, never the secret). */
  key: string;
  ratePerSecond: number;
  burst: number;
}

/** Construction options of HttpClient. */
export interface HttpClientOptions {
  /** Prefix of relative targets: `baseUrl` + `/volumes` keeps the base path. */
  baseUrl?: string;
  /** Per-attempt timeout covering headers and body (default 30 s). */
  timeoutMs?: number;
  retry?: RetryPolicyOptions | RetryPolicy;
  /** Per-host limits shared by every request of this client. */
  rateLimit?: RateLimitOptions;
  /** A rate limit shared with other clients and processes, applied on top of `rateLimit`. */
  sharedLimit?: SharedLimitOptions;
  /** Sent with every request (e.g. an `Authorization` header; never logged). */
  headers?: Readonly<Record<string, string>>;
  logger: Logger;
  userAgent: string;
  /**
   * Tells a quota-exhausted 429/403 from a retryable one. The API's client supplies it; without
   * one no response is a quota error (every 429 is retried).
   */
  isQuotaError?: QuotaErrorDetector;
  /** Injectable fetch; when given, `transport` is ignored. */
  fetch?: typeof fetch;
  /**
   * `fetch` (default): the global fetch. `node`: node:http with keep-alive agents, same
   * behaviour for what this client sends at about a third of the CPU and little garbage.
   */
  transport?: TransportKind;
  /** Called after every attempt; exceptions thrown by it are logged and ignored. */
  onRequest?: (event: HttpRequestEvent) => void;
}

/** Options of one request. */
export interface RequestOptions {
  /** Default GET. */
  method?: string;
  /** Appended to the target's own query; a URLSearchParams is used as it is. */
  query?: QueryParams | URLSearchParams;
  /** Merged over the client's headers. */
  headers?: Readonly<Record<string, string>>;
  /** Must be re-sendable (string, bytes, URLSearchParams, FormData): retries send it again. */
  body?: RequestInit["body"];
  signal?: AbortSignal;
  /** Statuses returned instead of thrown (default 2xx), e.g. to handle 304 yourself. */
  acceptStatus?: (status: number) => boolean;
  /**
   * Whether failures after the request may have reached the server are retried.
   * Default: true for idempotent methods; POST/PATCH only retry 429, 503 and refused connections.
   */
  retryUnsafe?: boolean;
}

/** Options of getJson: the request options plus the schema validating the body. */
export interface GetJsonOptions<S extends z.ZodType>
  extends Omit<RequestOptions, "method" | "body"> {
  schema: S;
}

/** A response whose status was accepted, with its body read in full. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  bodyText: string;
  /** Attempts it took, including the first. */
  attempts: number;
}
