import { Catalogue } from "./catalogue.ts";
import type { CatalogueOptions } from "./catalogue-types.ts";
import { handleControl } from "./control-routes.ts";
import { type DpopRejection, DpopVerifier } from "./dpop-verifier.ts";
import { BLOCK_PAGE, itemDetailJson, notFoundJson, shopsProductJson } from "./responses.ts";
import { seededRng } from "./rng.ts";
import { searchPage } from "./search-route.ts";

/**
 * How the fake blocks: `empty` answers every search with no items (what a blocked client
 * usually sees), `forbidden` answers every API call 403 with an HTML page, `html` answers 200
 * with the HTML page.
 */
export type BlockMode = "off" | "empty" | "forbidden" | "html";

/** Live knobs of the fake; change them any time (also over `POST /_fake/knobs`). */
export interface MercariFakeKnobs {
  block: BlockMode;
  /** Delay before every API answer, ms. */
  latencyMs: number;
  /** Chance per API request of a 503. */
  errorRate: number;
  /** Chance per API request of a 429 (with `Retry-After: 1`). */
  rateLimitRate: number;
  /** Chance per API request of a 200 whose JSON body is cut off (a malformed page). */
  malformedRate: number;
  /** false: accept requests without checking their DPoP proof. */
  verifyDpop: boolean;
  /**
   * Every third search page (from the second) comes back 7 items short, more still following
   * (on by default: Mercari's pages before the last can be short).
   */
  shortPages: boolean;
  /** Every item and Shops product request answers 404 `{"message":"error"}` (a gateway, not Mercari). */
  gateway404: boolean;
  /** Every search page from the second names the same `nextPageToken` again (a paging loop). */
  repeatPageToken: boolean;
}

/** Options of the fake: the catalogue's, the DPoP clock and the initial knobs. */
export interface MercariFakeOptions extends CatalogueOptions {
  /** The clock DPoP `iat` is checked against (default: the wall clock). */
  dpopNow?: () => number;
  knobs?: Partial<MercariFakeKnobs>;
}

/** Counters of what the fake answered. */
export interface MercariFakeStats {
  search: number;
  item: number;
  shops: number;
  notFound: number;
  blocked: number;
  faults: number;
  rejected: Partial<Record<DpopRejection, number>>;
}

export const SEARCH_PATH = "/v2/entities:search";
export const ITEM_PATH = "/items/get";
export const SHOPS_PREFIX = "/v1/marketplaces/shops/products/";

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * A fake of Mercari's JSON API (search, item detail, Shops product) over a clock-driven
 * catalogue, checking every request's DPoP proof, with block modes, latency and fault knobs
 * and a control API under `/_fake/`. `handle` is a Web fetch handler for startFakeServer.
 */
export class MercariFake {
  readonly catalogue: Catalogue;
  readonly knobs: MercariFakeKnobs;
  readonly stats: MercariFakeStats = {
    search: 0,
    item: 0,
    shops: 0,
    notFound: 0,
    blocked: 0,
    faults: 0,
    rejected: {},
  };
  /** Detail and Shops product requests answered, per listing id (duplicate fetches show here). */
  readonly detailRequests = new Map<string, number>();
  readonly #dpop: DpopVerifier;
  readonly #faultRng = seededRng(7);

  constructor(options: MercariFakeOptions = {}) {
    this.catalogue = new Catalogue(options);
    this.#dpop = new DpopVerifier(options.dpopNow);
    this.knobs = {
      block: "off",
      latencyMs: 0,
      errorRate: 0,
      rateLimitRate: 0,
      malformedRate: 0,
      verifyDpop: true,
      shortPages: true,
      gateway404: false,
      repeatPageToken: false,
      ...options.knobs,
    };
  }

  /** Answers one request. */
  handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/_fake/")) return handleControl(this, request, url);
    if (this.knobs.latencyMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.knobs.latencyMs));
    }
    const k = this.knobs;
    if (k.block === "forbidden" || k.block === "html") {
      this.stats.blocked++;
      return new Response(BLOCK_PAGE, {
        status: k.block === "forbidden" ? 403 : 200,
        headers: { "content-type": "text/html; charset=UTF-8" },
      });
    }
    if (k.errorRate > 0 && this.#faultRng.chance(k.errorRate)) {
      this.stats.faults++;
      return json({ code: 14, message: "unavailable" }, 503);
    }
    if (k.rateLimitRate > 0 && this.#faultRng.chance(k.rateLimitRate)) {
      this.stats.faults++;
      return json({ code: 8, message: "too many requests" }, 429, { "retry-after": "1" });
    }
    if (k.malformedRate > 0 && this.#faultRng.chance(k.malformedRate)) {
      this.stats.faults++;
      return new Response('{"result":"OK","items":[{"id":"m1', {
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    }
    if (k.verifyDpop) {
      const why = await this.#dpop.verify(request.headers.get("dpop"), request.method, request.url);
      if (why) {
        this.stats.rejected[why] = (this.stats.rejected[why] ?? 0) + 1;
        return json({ code: 16, message: `invalid DPoP proof: ${why}` }, 401);
      }
    }
    return this.#route(request, url);
  };

  async #route(request: Request, url: URL): Promise<Response> {
    if (url.pathname === SEARCH_PATH && request.method === "POST") {
      this.stats.search++;
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return json({ code: 3, message: "request body is not JSON" }, 400);
      }
      const answer = searchPage(this.catalogue, body, {
        blocked: this.knobs.block === "empty",
        shortPages: this.knobs.shortPages,
        repeatPageToken: this.knobs.repeatPageToken,
      });
      if (this.knobs.block === "empty") this.stats.blocked++;
      return "error" in answer ? json({ code: 3, message: answer.error }, 400) : json(answer);
    }
    const detail = url.pathname === ITEM_PATH || url.pathname.startsWith(SHOPS_PREFIX);
    if (detail && this.knobs.gateway404) {
      this.stats.faults++;
      return json({ message: "error" }, 404);
    }
    if (url.pathname === ITEM_PATH && request.method === "GET") {
      this.stats.item++;
      const id = url.searchParams.get("id") ?? "";
      this.#countDetail(id);
      const listing = this.catalogue.get(id);
      if (!listing || listing.shop) return this.#notFound();
      return json(itemDetailJson(listing));
    }
    if (url.pathname.startsWith(SHOPS_PREFIX) && request.method === "GET") {
      this.stats.shops++;
      const id = decodeURIComponent(url.pathname.slice(SHOPS_PREFIX.length));
      this.#countDetail(id);
      const listing = this.catalogue.get(id);
      if (!listing?.shop) return this.#notFound();
      return json(shopsProductJson(listing, this.catalogue.now()));
    }
    return json({ code: 5, message: `no route ${request.method} ${url.pathname}` }, 404);
  }

  #countDetail(id: string): void {
    this.detailRequests.set(id, (this.detailRequests.get(id) ?? 0) + 1);
  }

  #notFound(): Response {
    this.stats.notFound++;
    return json(notFoundJson(), 404);
  }
}
