import type { Logger } from "tidemark";
import {
  HttpClient,
  type HttpRequestEvent,
  type Page,
  paginateByToken,
  parseJsonBody,
} from "tidemark/kit";
import {
  type ChangesPage,
  changesPage,
  notFoundAnswer,
  type PackageDocument,
  packageDocument,
} from "./schemas.ts";

/** How the client reaches the registry. */
export interface RegistryClientOptions {
  baseUrl: string;
  requestsPerSecond: number;
  concurrency: number;
  logger: Logger;
  /** Told of each attempt: pass the run's `reportHttpRequest` (serve/worker's HTTP metrics). */
  onRequest?: (event: HttpRequestEvent) => void;
}

/** The registry's typed client on tidemark/kit's HttpClient (retries, rate limit, paging). */
export class RegistryClient {
  readonly #http: HttpClient;

  constructor(options: RegistryClientOptions) {
    this.#http = new HttpClient({
      baseUrl: options.baseUrl,
      logger: options.logger,
      userAgent: "tidemark-registry-feed",
      rateLimit: { requestsPerSecond: options.requestsPerSecond, concurrency: options.concurrency },
      retry: { maxAttempts: 4 },
      onRequest: options.onRequest,
    });
  }

  /** The changes after sequence `since`, a page at a time, until a page has none. */
  changes(
    since: number,
    limit: number,
    signal: AbortSignal,
  ): AsyncGenerator<Page<ChangesPage, string | undefined>> {
    return paginateByToken(this.#http, {
      schema: changesPage,
      signal,
      start: String(since),
      request: (token) => ({ target: "/_changes", query: { since: token ?? "0", limit } }),
      nextToken: (page) => (page.results.length === 0 ? null : String(page.last_seq)),
      itemCount: (page) => page.results.length,
      isEmptyAnswer: (page) => page.results.length === 0,
    });
  }

  /**
   * A package's document; undefined only for the registry's documented not-found answer (404
   * with `{"error":"not_found"}`). Any other 404 body (a proxy's page) fails the request.
   */
  async package(name: string, signal: AbortSignal): Promise<PackageDocument | undefined> {
    const url = this.#http.resolveUrl(`/${encodeURIComponent(name)}`).href;
    const res = await this.#http.request(url, {
      signal,
      headers: { accept: "application/json" },
      acceptStatus: (status) => status === 200 || status === 404,
    });
    const init = { method: "GET", url, status: res.status, attempts: res.attempts };
    if (res.status === 404) {
      parseJsonBody(res.bodyText, res.headers, notFoundAnswer, init);
      return undefined;
    }
    return parseJsonBody(res.bodyText, res.headers, packageDocument, init);
  }
}
