import type { Logger } from "tidemark";
import { HttpClient, type HttpRequestEvent } from "tidemark/kit";
import type { BooksRunParams } from "../params.ts";
import type { BooksSettings } from "../settings.ts";
import { isGoogleQuotaError } from "./google-quota-error.ts";
import { type VolumesResponse, volumesResponseSchema } from "./volumes-schema.ts";

/** One page request. */
export interface PageRequest {
  q: string;
  startIndex: number;
  maxResults: number;
}

/** What a page call returns: the validated body and how many HTTP attempts it took. */
export interface PageResult {
  body: VolumesResponse;
  attempts: number;
}

/** Fetches one page of search results; throws the engine's HttpError family on failure. */
export type FetchPage = (request: PageRequest, signal?: AbortSignal) => Promise<PageResult>;

/** Thrown HTTP errors carry how many attempts were made (for the quota count). */
export function attemptsOf(err: unknown): number {
  return typeof err === "object" && err !== null && "attempts" in err
    ? Number((err as { attempts: unknown }).attempts) || 1
    : 1;
}

/**
 * A `/books/v1/volumes` client on the engine's HttpClient (retries, Retry-After, per-host rate
 * limit, Google quota detection, key redaction in logs and errors).
 */
export function googleBooksFetcher(options: {
  settings: BooksSettings;
  google: BooksRunParams["google_books"];
  apiKey: string | undefined;
  logger: Logger;
  /** Told of each attempt (the process's HTTP metrics: the run's `reportHttpRequest`). */
  onRequest?: (event: HttpRequestEvent) => void;
}): FetchPage {
  const { settings, google, apiKey } = options;
  let attempts = 0;
  const http = new HttpClient({
    baseUrl: settings.baseUrl,
    timeoutMs: settings.requestTimeoutMs,
    retry: { maxAttempts: settings.retryMaxAttempts },
    rateLimit: { requestsPerSecond: settings.requestsPerSecond, burst: 2 },
    logger: options.logger,
    userAgent: "tidemark-books/0.1 (+https://github.com/tidemark)",
    // Google's daily quota ends a run instead of being retried; the engine has no such rule.
    isQuotaError: isGoogleQuotaError,
    onRequest: (event) => {
      attempts = event.attempt;
      options.onRequest?.(event);
    },
  });
  return async (request, signal) => {
    attempts = 0;
    const body = await http.getJson("/books/v1/volumes", {
      schema: volumesResponseSchema,
      signal,
      query: {
        q: request.q,
        startIndex: request.startIndex,
        maxResults: request.maxResults,
        langRestrict: google.langRestrict,
        printType: google.printType,
        orderBy: google.orderBy,
        filter: google.filter,
        projection: google.projection,
        key: apiKey,
      },
    });
    return { body, attempts: Math.max(1, attempts) };
  };
}
