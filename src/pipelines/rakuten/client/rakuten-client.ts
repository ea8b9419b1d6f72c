import type { Logger } from "tidemark";
import {
  BadPayloadError,
  HttpClient,
  type HttpRequestEvent,
  parseJsonBody,
  type QueryParams,
  type RetryPolicyOptions,
  type SharedTokenLimiter,
} from "tidemark/kit";
import type { z } from "zod";
import type { RakutenSettings } from "../settings.ts";
import { type RakutenCredentials, rateLimitKey } from "./credentials.ts";
import { API_VERSIONS, endpointPath, type RakutenApi } from "./endpoints.ts";
import { isNotFound, parseRakutenError, RakutenApiError, RakutenNotFoundError } from "./errors.ts";
import { parseItemSearchFast } from "./fast-item-parse.ts";
import { itemWithMeta } from "./item-with-meta.ts";
import type {
  FetchMeta,
  RakutenGenreRaw,
  RakutenItemRaw,
  RakutenRankingRaw,
  RakutenTagRaw,
} from "./raw-types.ts";
import {
  genreSearchSchema,
  isZeroHitAnswer,
  itemSearchSchema,
  rankingSchema,
  tagSearchSchema,
} from "./schemas.ts";

/** Construction options of RakutenClient. */
export interface RakutenClientOptions {
  settings: RakutenSettings;
  credentials: RakutenCredentials;
  logger: Logger;
  /**
   * The limit shared by every process using this application id (the engine's
   * SharedRateLimiter on the run's database). Without one, or with `rate_limit_scope:
   * process`, only this client is paced.
   */
  limiter?: SharedTokenLimiter;
  /** Overrides of the retry policy (tests shorten the backoff). */
  retry?: RetryPolicyOptions;
  /** Requests in flight at once (default 8); the rate limit applies on top. */
  concurrency?: number;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Told of each attempt besides the client's own counters (the process's HTTP metrics). */
  onRequest?: (event: HttpRequestEvent) => void;
}

/** Counters of one client: attempts sent, answered 429, answered 5xx. */
export interface RakutenClientStats {
  requests: number;
  rateLimited: number;
  serverErrors: number;
}

/** 4xx answers other than 429/408 come back to the client, which reads their error body. */
const acceptForErrorBody = (s: number): boolean =>
  (s >= 200 && s < 300) || (s >= 400 && s < 500 && s !== 429 && s !== 408);

/**
 * Rakuten Ichiba Web Service client: Item Search by item code, Ranking, Genre Search and Tag
 * Search. Every answer is validated and typed at the boundary (both formatVersions, numbers
 * sent as strings, `Items` absent), 429/5xx are retried with backoff honouring Retry-After, and
 * one token of the application id's shared bucket is taken before every attempt.
 */
export class RakutenClient {
  readonly stats: RakutenClientStats = { requests: 0, rateLimited: 0, serverErrors: 0 };
  readonly #settings: RakutenSettings;
  readonly #credentials: RakutenCredentials;
  readonly #http: HttpClient;
  readonly #now: () => Date;
  readonly #fixedQuery: ReadonlyArray<readonly [string, string]>;

  constructor(options: RakutenClientOptions) {
    const { settings, credentials } = options;
    const limiter = settings.rateLimitScope === "shared" ? options.limiter : undefined;
    this.#settings = settings;
    this.#credentials = credentials;
    this.#now = options.now ?? (() => new Date());
    this.#fixedQuery = this.#fixedQueryOf();
    const headers: Record<string, string> = {};
    if (settings.accessKeyIn === "bearer" && credentials.accessKey !== undefined) {
      headers.authorization = `Bearer ${credentials.accessKey}`;
    }
    if (settings.referer !== undefined) {
      headers.referer = settings.referer;
      headers.origin = new URL(settings.referer).origin;
    }
    const rps = settings.requestsPerSecond;
    this.#http = new HttpClient({
      baseUrl: settings.baseUrl,
      timeoutMs: settings.requestTimeoutMs,
      retry: { maxAttempts: settings.retryMaxAttempts, ...options.retry },
      // With a shared bucket, the bucket paces; this client only caps its own concurrency.
      rateLimit: limiter
        ? { concurrency: options.concurrency ?? 8 }
        : { requestsPerSecond: rps, burst: 1, concurrency: options.concurrency ?? 8 },
      // Burst = 50 ms of requests (1 at Rakuten's 1/s): at high rates (a proxy, the benchmark)
      // the shared bucket can then lease tokens instead of one transaction per request.
      sharedLimit: limiter
        ? {
            limiter,
            key: rateLimitKey(credentials.applicationId),
            ratePerSecond: rps,
            burst: Math.max(1, Math.floor(rps * 0.05)),
          }
        : undefined,
      headers,
      logger: options.logger,
      userAgent: "tidemark-rakuten/0.1",
      fetch: options.fetch,
      // One small call per target, 100,000 of them in a first load: fetch's per-request CPU and
      // garbage (most of a run's old-generation growth) are what the node transport saves.
      transport: "node",
      onRequest: (e) => {
        this.#count(e);
        options.onRequest?.(e);
      },
    });
  }

  /** Item Search by `itemCode` (`shop:1234`); undefined when Rakuten no longer has the item. */
  async searchItemByCode(
    itemCode: string,
    signal?: AbortSignal,
  ): Promise<RakutenItemRaw | undefined> {
    const { body, meta } = await this.#get(
      "item",
      { itemCode, hits: 1 },
      itemSearchSchema,
      signal,
      parseItemSearchFast,
    );
    // The schema let no other answer without items through.
    if (isZeroHitAnswer(body)) return undefined;
    const item = body.Items.find((i) => i.itemCode === itemCode);
    // Never file another item's content under this code.
    if (item === undefined) {
      const got = body.Items.map((i) => i.itemCode).join(", ");
      throw new Error(`Rakuten item search for ${itemCode} answered other items: ${got}`);
    }
    return itemWithMeta(item, meta);
  }

  /** The realtime ranking of a genre (0 = all genres), first page (30 items) in rank order. */
  async ranking(genreId: number, signal?: AbortSignal): Promise<RakutenRankingRaw> {
    const query = genreId === 0 ? {} : { genreId };
    const { body, meta } = await this.#get("ranking", query, rankingSchema, signal);
    return {
      genreId,
      title: body.title,
      lastBuildDate: body.lastBuildDate,
      Items: body.Items,
      ...meta,
    };
  }

  /** Genre Search: the genre with its parents, brothers and children (0 = the root). */
  async genre(genreId: number, signal?: AbortSignal): Promise<RakutenGenreRaw> {
    const { body, meta } = await this.#get("genre", { genreId }, genreSearchSchema, signal);
    return { ...body, ...meta };
  }

  /** Tag Search for one tag id; undefined when no group holds the tag. */
  async tag(tagId: number, signal?: AbortSignal): Promise<RakutenTagRaw | undefined> {
    const { body, meta } = await this.#get("tag", { tagId }, tagSearchSchema, signal);
    const found = body.tagGroups.some((g) => g.tags.some((t) => t.tagId === tagId));
    return found ? { tagId, tagGroups: body.tagGroups, ...meta } : undefined;
  }

  async #get<S extends z.ZodType>(
    api: RakutenApi,
    params: QueryParams,
    schema: S,
    signal: AbortSignal | undefined,
    fast?: (json: unknown) => z.output<S> | undefined,
  ): Promise<{ body: z.output<S>; meta: FetchMeta }> {
    // The call's own parameters, then the fixed ones (built once: a spread of them per call cost
    // more than the rest of the URL).
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) query.append(name, String(value));
    }
    for (const [name, value] of this.#fixedQuery) query.append(name, value);
    const res = await this.#http.request(endpointPath(api, this.#settings.hostStyle), {
      query,
      signal,
      acceptStatus: acceptForErrorBody,
    });
    // A 200 never carries an error body in practice; the substring test keeps that check cheap.
    const info =
      res.status >= 400 || res.bodyText.includes('"error')
        ? parseRakutenError(res.bodyText)
        : undefined;
    if (res.status >= 400 || info !== undefined) {
      const status = res.status >= 400 ? res.status : 400;
      // Described only on this error path: a run makes one call per target.
      const what = `${api} ${JSON.stringify(params)}`;
      if (isNotFound(status, info)) throw new RakutenNotFoundError(status, info, what);
      throw new RakutenApiError(status, info, what);
    }
    const path = endpointPath(api, this.#settings.hostStyle);
    const init = { method: "GET", url: path, status: res.status, attempts: res.attempts };
    let body: z.output<S>;
    try {
      body = parseJsonBody(res.bodyText, res.headers, schema, init, fast);
    } catch (err) {
      if (!(err instanceof BadPayloadError)) throw err;
      // The same refusal again, naming the call's own parameters (never the credentials): built
      // only on this error path, as a run makes one call per target.
      const own = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) {
        if (value !== undefined && value !== null) own.append(name, String(value));
      }
      parseJsonBody(res.bodyText, res.headers, schema, { ...init, url: `${path}?${own}` });
      throw err;
    }
    const meta: FetchMeta = {
      fetched_at: this.#now().toISOString(),
      api_version: API_VERSIONS[api],
      http_status: res.status,
    };
    return { body, meta };
  }

  /** Credentials and format, appended to every call's query (in this order). */
  #fixedQueryOf(): Array<[string, string]> {
    const c = this.#credentials;
    const fixed: Array<[string, string | undefined]> = [
      ["applicationId", c.applicationId],
      ["accessKey", this.#settings.accessKeyIn === "query" ? c.accessKey : undefined],
      ["affiliateId", c.affiliateId],
      ["format", "json"],
      ["formatVersion", String(this.#settings.formatVersion)],
    ];
    return fixed.filter((pair): pair is [string, string] => pair[1] !== undefined);
  }

  #count(e: HttpRequestEvent): void {
    this.stats.requests++;
    if (e.status === 429) this.stats.rateLimited++;
    if (e.status !== undefined && e.status >= 500) this.stats.serverErrors++;
  }
}
