import type { Logger } from "tidemark";
import { HttpClient, type HttpRequestEvent, type Page, paginateByToken } from "tidemark/kit";
import { type RecordsPage, recordsPage } from "./schemas.ts";

/** How the client reaches the API. */
export interface StarterKitClientOptions {
  baseUrl: string;
  requestsPerSecond: number;
  logger: Logger;
  /** Told of each attempt: pass the run's `reportHttpRequest` (serve/worker's HTTP metrics). */
  onRequest?: (event: HttpRequestEvent) => void;
}

/**
 * The API's typed client: retries, a rate limit and token paging come from tidemark/kit's
 * HttpClient; every page is validated against its schema (a page of another shape fails the
 * request, naming the field).
 */
export class StarterKitClient {
  readonly #http: HttpClient;

  constructor(options: StarterKitClientOptions) {
    this.#http = new HttpClient({
      baseUrl: options.baseUrl,
      logger: options.logger,
      userAgent: "tidemark-starter-kit",
      rateLimit: { requestsPerSecond: options.requestsPerSecond },
      retry: { maxAttempts: 4 },
      onRequest: options.onRequest,
    });
  }

  /** Records updated at or after `since`, oldest first, a page at a time. */
  pages(
    since: string,
    pageSize: number,
    signal: AbortSignal,
  ): AsyncGenerator<Page<RecordsPage, string | undefined>> {
    return paginateByToken(this.#http, {
      schema: recordsPage,
      signal,
      request: (token) => ({
        target: "/v1/records",
        query: { updated_since: since, limit: pageSize, page_token: token },
      }),
      nextToken: (page) => page.next_page_token,
    });
  }
}
