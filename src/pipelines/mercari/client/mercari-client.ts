import { randomUUID } from "node:crypto";
import type { z } from "zod";
import {
  type Database,
  HttpClient,
  HttpError,
  type HttpRequestEvent,
  type HttpResponse,
  type Logger,
  parseJsonBody,
  RetryableHttpError,
  RetryPolicy,
  type RetryPolicyOptions,
  redactedExcerpt,
  SharedRateLimiter,
  type SharedTokenLimiter,
} from "../../../engine/index.ts";
import { countFailedAnswer } from "../monitoring/blocked.ts";
import type { MercariSettings } from "../settings.ts";
import { type DpopSigner, processDpopSigner } from "./dpop.ts";
import { normalizeItemDetail, normalizeSearchItem, normalizeShopsProduct } from "./normalize.ts";
import {
  itemDetailResponseSchema,
  searchItemSchema,
  searchResponseSchema,
  shopsProductSchema,
} from "./schemas.ts";
import { buildSearchBody } from "./search-body.ts";
import {
  type ItemDetail,
  isMercariId,
  isShopsId,
  MercariBlockedError,
  type MercariBlockReason,
  type MercariClient,
  type MercariItem,
  type SearchPage,
  type SearchQuery,
} from "./types.ts";

/** Construction options of the Mercari client. */
export interface MercariClientOptions {
  settings: MercariSettings;
  logger: Logger;
  /** The shared rate limit lives in this database (every worker process shares it). */
  db?: Database;
  /** Or an explicit shared limiter (tests); ignored when requests_per_second is 0. */
  sharedLimiter?: SharedTokenLimiter;
  /** Default: the process's signer (one P-256 key per process). */
  signer?: DpopSigner | Promise<DpopSigner>;
  /** Backoff of retries (tests inject a no-op sleep). */
  retry?: RetryPolicyOptions;
  fetch?: typeof fetch;
  onRequest?: (event: HttpRequestEvent) => void;
  /** What "now" is when a Shops time sale's window is checked (default: the wall clock). */
  clock?: { now(): Date };
}

const SEARCH_PATH = "/v2/entities:search";
const ITEM_PATH = "/items/get";
const SHOPS_PATH = "/v1/marketplaces/shops/products/";

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
function isNotFound(response: HttpResponse): boolean {
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
 * Mercari's JSON API over the engine's HttpClient: a fresh DPoP proof on every attempt
 * (retries included), `x-platform: web`, the shared rate limit, retries with backoff; a 403,
 * 429 or HTML page that persists after the retries is a MercariBlockedError.
 */
export function createMercariClient(options: MercariClientOptions): MercariClient {
  const { settings, logger } = options;
  const signer = Promise.resolve(options.signer ?? processDpopSigner());
  const baseFetch = options.fetch ?? globalThis.fetch;
  // The proof is made per attempt, inside fetch: a retry must not replay a used jti.
  const fetchWithProof: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const url = input instanceof Request ? input.url : String(input);
    headers.set("dpop", await (await signer).proof(init?.method ?? "GET", url));
    return baseFetch(input, { ...init, headers });
  };
  const rps = settings.requestsPerSecond;
  const limiter =
    options.sharedLimiter ?? (options.db ? new SharedRateLimiter(options.db) : undefined);
  const host = new URL(settings.baseUrl).host;
  const retry = new RetryPolicy({ maxAttempts: settings.retryMaxAttempts, ...options.retry });
  const http = new HttpClient({
    baseUrl: settings.baseUrl,
    timeoutMs: settings.requestTimeoutMs,
    retry,
    sharedLimit:
      rps > 0 && limiter
        ? {
            limiter,
            key: `mercari:${host}`,
            ratePerSecond: rps,
            burst: Math.max(1, Math.ceil(rps)),
          }
        : undefined,
    headers: { "x-platform": "web", accept: "application/json" },
    logger,
    userAgent: "Mozilla/5.0 (compatible; tidemark-mercari/0.1)",
    fetch: fetchWithProof,
    onRequest: options.onRequest,
  });
  const searchSessionId = randomUUID().replaceAll("-", "");

  /**
   * One request with the block rules: 403 and HTML pages are retried with backoff here (the
   * HttpClient retries 429 and 5xx itself); still there after the last attempt → blocked.
   */
  async function send(
    target: string,
    init: { method: "GET" | "POST"; body?: string; signal?: AbortSignal },
  ): Promise<HttpResponse> {
    for (let attempt = 1; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await http.request(target, {
          method: init.method,
          body: init.body,
          headers: init.body === undefined ? undefined : { "content-type": "application/json" },
          signal: init.signal,
          acceptStatus: acceptHandled,
          retryUnsafe: true,
        });
      } catch (err) {
        if (err instanceof RetryableHttpError && err.status === 429) {
          throw blocked("http_429", `HTTP 429 after ${err.attempts} attempts`, target, err);
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
      if (attempt >= retry.maxAttempts) {
        if (reason)
          throw blocked(reason, `HTTP ${response.status} after ${attempt} attempts`, target);
        throw stray404(target, init.method, response, attempt);
      }
      const delayMs = retry.delayMs(attempt);
      logger.warn(
        { target, status: response.status, attempt, delayMs },
        stray
          ? "mercari: a 404 that is not Mercari's not-found answer; retrying"
          : "mercari: block answer; retrying",
      );
      await retry.sleep(delayMs, init.signal);
    }
  }

  function blocked(
    reason: MercariBlockReason,
    detail: string,
    target: string,
    cause?: unknown,
  ): MercariBlockedError {
    logger.warn({ reason, target: target.split("?")[0] }, "mercari: blocked");
    return new MercariBlockedError(reason, detail, cause === undefined ? undefined : { cause });
  }

  /** The failure of a request that kept answering a 404 Mercari does not document. */
  function stray404(
    target: string,
    method: string,
    response: HttpResponse,
    attempts: number,
  ): HttpError {
    const endpoint = target.startsWith(SEARCH_PATH) ? "search" : "detail";
    countFailedAnswer(endpoint, "http_404_not_mercari");
    return new HttpError(
      `HTTP 404 without Mercari's not-found answer (errors[].code ${NOT_FOUND_CODE}): body ${redactedExcerpt(response.bodyText) || "(empty)"}; nothing is deleted on it`,
      { method, url: http.resolveUrl(target).href, status: 404, attempts },
      true,
    );
  }

  function parse<S extends z.ZodType>(target: string, response: HttpResponse, schema: S) {
    return parseJsonBody(response.bodyText, response.headers, schema, {
      url: http.resolveUrl(target).href,
      status: response.status,
      attempts: response.attempts,
    });
  }

  /** A search hit → item; a hit we cannot read (bad price, no id…) is skipped with a warning. */
  function readHit(hit: unknown): MercariItem[] {
    const parsed = searchItemSchema.safeParse(hit);
    if (parsed.success) {
      const item = normalizeSearchItem(parsed.data);
      return item ? [item] : [];
    }
    const id = (hit as { id?: unknown } | null)?.id;
    const issue = parsed.error.issues[0];
    logger.warn(
      { id, field: issue?.path.join("."), issue: issue?.message },
      "mercari: a search hit that cannot be read is skipped",
    );
    return [];
  }

  const client: MercariClient = {
    async search(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage> {
      const body = buildSearchBody(query, settings.pageSize, searchSessionId);
      const response = await send(SEARCH_PATH, {
        method: "POST",
        body: JSON.stringify(body),
        signal,
      });
      const raw = parse(SEARCH_PATH, response, searchResponseSchema);
      const items = (raw.items ?? []).flatMap((hit) => readHit(hit));
      const token = raw.meta?.nextPageToken ?? "";
      return {
        items,
        nextPageToken: token === "" ? null : token,
        numFound: raw.meta?.numFound ?? null,
      };
    },

    async getItem(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found"> {
      checkId(id);
      const target = `${ITEM_PATH}?id=${encodeURIComponent(id)}`;
      const response = await send(target, { method: "GET", signal });
      if (isNotFound(response)) return "not_found";
      const raw = parse(target, response, itemDetailResponseSchema);
      if (raw.result !== "OK" || !raw.data) {
        // Only RecordNotFound (above) means gone; any other error must not delete the row.
        const codes = (raw.errors ?? []).map((e) => e.code).join(", ") || "no error code";
        throw new Error(`mercari: ${ITEM_PATH} of ${id} answered result ${raw.result} (${codes})`);
      }
      // A stopped or cancelled listing is no longer for sale: treated as gone.
      return normalizeItemDetail(raw.data) ?? "not_found";
    },

    async getShopsProduct(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found"> {
      checkId(id);
      const target = `${SHOPS_PATH}${encodeURIComponent(id)}?view=FULL&imageType=JPEG`;
      const response = await send(target, { method: "GET", signal });
      if (isNotFound(response)) return "not_found";
      const raw = parse(target, response, shopsProductSchema);
      return normalizeShopsProduct(id, raw, options.clock?.now() ?? new Date());
    },

    getDetail(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found"> {
      return isShopsId(id) ? client.getShopsProduct(id, signal) : client.getItem(id, signal);
    },
  };
  return client;
}

function checkId(id: string): void {
  if (!isMercariId(id)) throw new TypeError(`not a Mercari item id: ${JSON.stringify(id)}`);
}
