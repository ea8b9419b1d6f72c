// How Mercari's answers are told apart before they are read: a block (403, 429, an HTML page),
// Mercari's own not-found answer, and a 404 that is neither (a failed request).
import type { Logger } from "tidemark";
import {
  type HttpClient,
  HttpError,
  type HttpResponse,
  RetryableHttpError,
  type RetryPolicy,
  redactedExcerpt,
} from "tidemark/kit";
import { countFailedAnswer } from "./blocked.ts";
import { MercariBlockedError, type MercariBlockReason } from "./types.ts";

/** What a request goes out on: the HTTP client, its retry policy, the logger. */
export interface Wire {
  http: HttpClient;
  retry: RetryPolicy;
  logger: Logger;
}

export const SEARCH_PATH = "/v2/entities:search";

/** Statuses the outer loop handles itself: 403 and 404 come back instead of being thrown. */
const acceptHandled = (status: number): boolean =>
  (status >= 200 && status < 300) || status === 403 || status === 404;

/** True when a body is an HTML page (a block or challenge page) rather than JSON. */
function looksLikeHtml(response: HttpResponse): boolean {
  const type = response.headers.get("content-type") ?? "";
  return type.includes("text/html") || /^\s*</.test(response.bodyText);
}

/** The error code of Mercari's documented not-found answer. */
const NOT_FOUND_CODE = "RecordNotFoundException";

/**
 * True for Mercari's documented "not found" answer only: a JSON body whose `errors` carry the
 * code RecordNotFoundException (with a 404, or a 200 `"result": "error"`). A 404 with any other
 * body (a gateway's `{"message":"error"}`, an empty body) is no such answer. Not a substring
 * search of the body: an item's description may say anything, and a row is deleted on this.
 */
export function isNotFound(response: HttpResponse): boolean {
  try {
    const body: unknown = JSON.parse(response.bodyText);
    const errors = (body as { errors?: unknown } | null)?.errors;
    return (
      Array.isArray(errors) &&
      errors.some((e) => (e as { code?: unknown } | null)?.code === NOT_FOUND_CODE)
    );
  } catch {
    return false;
  }
}

/** A 404 JSON answer that is not Mercari's not-found answer: a failed request, never "gone". */
function isStray404(response: HttpResponse): boolean {
  return response.status === 404 && !looksLikeHtml(response) && !isNotFound(response);
}

/**
 * One request with the block rules: 403 and HTML pages (a 404 included) are retried with
 * backoff here (the HttpClient retries 429 and 5xx itself); still there after the last attempt
 * → blocked. A JSON 404 that is not Mercari's not-found answer is retried too, then fails the
 * request (counted; nothing is deleted on it).
 */
export async function send(
  wire: Wire,
  target: string,
  init: { method: "GET" | "POST"; body?: string; signal?: AbortSignal },
): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt++) {
    let response: HttpResponse;
    try {
      response = await wire.http.request(target, {
        method: init.method,
        body: init.body,
        headers: init.body === undefined ? undefined : { "content-type": "application/json" },
        signal: init.signal,
        acceptStatus: acceptHandled,
        retryUnsafe: true,
      });
    } catch (err) {
      if (err instanceof RetryableHttpError && err.status === 429) {
        throw blocked(wire, "http_429", `HTTP 429 after ${err.attempts} attempts`, target, err);
      }
      throw err;
    }
    const reason: MercariBlockReason | undefined =
      response.status === 403
        ? "http_403"
        : looksLikeHtml(response)
          ? "html_block_page"
          : undefined;
    const stray = reason === undefined && isStray404(response);
    if (reason === undefined && !stray) return response;
    if (attempt >= wire.retry.maxAttempts) {
      if (reason)
        throw blocked(wire, reason, `HTTP ${response.status} after ${attempt} attempts`, target);
      throw stray404(wire, target, init.method, response, attempt);
    }
    const delayMs = wire.retry.delayMs(attempt);
    wire.logger.warn(
      { target, status: response.status, attempt, delayMs },
      stray
        ? "mercari: a 404 that is not Mercari's not-found answer; retrying"
        : "mercari: block answer; retrying",
    );
    await wire.retry.sleep(delayMs, init.signal);
  }
}

function blocked(
  wire: Wire,
  reason: MercariBlockReason,
  detail: string,
  target: string,
  cause?: unknown,
): MercariBlockedError {
  wire.logger.warn({ reason, target: target.split("?")[0] }, "mercari: blocked");
  return new MercariBlockedError(reason, detail, cause === undefined ? undefined : { cause });
}

/** The failure of a request that kept answering a 404 Mercari does not document. */
function stray404(
  wire: Wire,
  target: string,
  method: string,
  response: HttpResponse,
  attempts: number,
): HttpError {
  const endpoint = target.startsWith(SEARCH_PATH) ? "search" : "detail";
  countFailedAnswer(endpoint, "http_404_not_mercari");
  return new HttpError(
    `HTTP 404 without Mercari's not-found answer (errors[].code ${NOT_FOUND_CODE}): body ${redactedExcerpt(response.bodyText) || "(empty)"}; nothing is deleted on it`,
    { method, url: wire.http.resolveUrl(target).href, status: 404, attempts },
    true,
  );
}
