export { type AttemptSignal, attemptSignal } from "./attempt-signal.ts";
export { AttemptTimeoutError, isAttemptTimeout } from "./call-abort.ts";
export {
  HostLimiter,
  HostLimiterPool,
  type HostLimitOptions,
  type RateLimitOptions,
} from "./host-limiter.ts";
export { HttpClient } from "./http-client.ts";
export type {
  GetJsonOptions,
  HttpClientOptions,
  HttpRequestEvent,
  HttpResponse,
  QueryParams,
  QueryValue,
  RequestOptions,
  SharedLimitOptions,
  SharedTokenLimiter,
} from "./http-client-types.ts";
export {
  BadPayloadError,
  type BadPayloadKind,
  ClientHttpError,
  formatIssuePath,
  HttpError,
  type HttpErrorInit,
  type IssueLike,
  NotFoundHttpError,
  type QuotaErrorDetector,
  QuotaExceededError,
  type ResponseHead,
  RetryableHttpError,
  type RetryableReason,
  redactedExcerpt,
  redactFreeText,
  summarizeIssues,
} from "./http-errors.ts";
export { nextLinkFromHeader } from "./link-header.ts";
export {
  nodeTransport,
  type Transport,
  type TransportKind,
  type TransportRequest,
  type TransportResponse,
} from "./node-transport.ts";
export {
  type NextUrlPaging,
  type OffsetPaging,
  type Page,
  type PageDecoder,
  type PageRequest,
  PaginationError,
  type PagingOptions,
  paginateByNextUrl,
  paginateByOffset,
  paginateByToken,
  type TokenPaging,
} from "./paginate.ts";
export { parseJsonBody } from "./parse-json-body.ts";
export {
  abortableSleep,
  parseRetryAfter,
  RetryPolicy,
  type RetryPolicyOptions,
  type SleepFn,
} from "./retry-policy.ts";
