import { randomUUID } from "node:crypto";
import type { Database, Logger } from "tidemark";
import {
  HttpClient,
  type HttpRequestEvent,
  type HttpResponse,
  parseJsonBody,
  RetryPolicy,
  type RetryPolicyOptions,
  SharedRateLimiter,
  type SharedTokenLimiter,
} from "tidemark/kit";
import type { z } from "zod";
import type { MercariSettings } from "../settings.ts";
import { isNotFound, SEARCH_PATH, send } from "./block-rules.ts";
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

const ITEM_PATH = "/items/get";
const SHOPS_PATH = "/v1/marketplaces/shops/products/";

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
  const wire = { http, retry, logger };

  function parse<S extends z.ZodType>(target: string, response: HttpResponse, schema: S) {
    return parseJsonBody(response.bodyText, response.headers, schema, {
      url: http.resolveUrl(target).href,
      status: response.status,
      attempts: response.attempts,
    });
  }

  const client: MercariClient = {
    async search(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage> {
      const body = buildSearchBody(query, settings.pageSize, searchSessionId);
      const response = await send(wire, SEARCH_PATH, {
        method: "POST",
        body: JSON.stringify(body),
        signal,
      });
      const raw = parse(SEARCH_PATH, response, searchResponseSchema);
      const items = (raw.items ?? []).flatMap((hit) => readHit(hit, logger));
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
      const response = await send(wire, target, { method: "GET", signal });
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
      const response = await send(wire, target, { method: "GET", signal });
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

/** A search hit → item; a hit we cannot read (bad price, no id…) is skipped with a warning. */
function readHit(hit: unknown, logger: Logger): MercariItem[] {
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

function checkId(id: string): void {
  if (!isMercariId(id)) throw new TypeError(`not a Mercari item id: ${JSON.stringify(id)}`);
}
