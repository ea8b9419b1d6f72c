import { apiOfPath, type RakutenApi } from "../client/endpoints.ts";
import { FakeCatalogue } from "./catalogue.ts";
import {
  type ErrorShape,
  errorBody,
  type FakeAnswer,
  type FakeRequest,
  json,
} from "./fake-bodies.ts";
import { handleControl } from "./fake-control.ts";
import { answerApi } from "./fake-routes.ts";
import { ItemBodyCache } from "./item-body-cache.ts";
import { withWrongTypes } from "./wrong-types.ts";

/** Fault and behaviour switches of the fake; change them any time (in-process or over HTTP). */
export interface RakutenFakeKnobs {
  /** Enforce the per-application-id rate limit with 429 (off for benchmarks). */
  rateLimit: boolean;
  requestsPerSecond: number;
  /** How early (ms) a request may arrive and still be accepted: network jitter. */
  toleranceMs: number;
  /** Answer every API call 503 "under maintenance". */
  maintenance: boolean;
  /** The next N API calls are answered 429 (whatever the rate). */
  burst429: number;
  /** The next N API calls get a broken payload (cut-off JSON). */
  malformed: number;
  /** The next N answers with an item, genre or tag carry one value of the wrong type. */
  wrongTypes: number;
  /** The next N Item Search or Ranking answers are a 200 `{}` (no `Items`, no `count`). */
  wrongShape: number;
  /** `host`: the host style decides (new host → new shape); or force one. */
  errorShape: "host" | ErrorShape;
  /** How a search with no results writes `Items` (the real API leaves it out). */
  zeroItems: "empty" | "absent";
  /** Retry-After (seconds) on 429 and 503. */
  retryAfterSeconds: number;
  /** The new host rejects calls without an access key. */
  requireAccessKey: boolean;
}

/** What the fake counted since the last reset. */
export interface RakutenFakeStats {
  /** API calls received (rejected ones included). */
  calls: number;
  byApi: Record<RakutenApi, number>;
  /** Answered 429 because of the rate limit. */
  rateLimited: number;
  /** Answered 429 by the burst knob. */
  burst429: number;
  maintenance503: number;
  malformed: number;
  wrongTypes: number;
  wrongShape: number;
  notFound: number;
  /** API calls per application id. */
  byApplication: Record<string, number>;
}

export const DEFAULT_KNOBS: RakutenFakeKnobs = {
  rateLimit: true,
  requestsPerSecond: 1,
  toleranceMs: 250,
  maintenance: false,
  burst429: 0,
  malformed: 0,
  wrongTypes: 0,
  wrongShape: 0,
  errorShape: "host",
  zeroItems: "absent",
  retryAfterSeconds: 1,
  requireAccessKey: true,
};

function emptyStats(): RakutenFakeStats {
  return {
    calls: 0,
    byApi: { item: 0, ranking: 0, genre: 0, tag: 0 },
    rateLimited: 0,
    burst429: 0,
    maintenance503: 0,
    malformed: 0,
    wrongTypes: 0,
    wrongShape: 0,
    notFound: 0,
    byApplication: {},
  };
}

/**
 * The Rakuten Ichiba API fake: Item Search, Ranking, Genre Search and Tag Search on both the
 * new host's and the old host's paths, formatVersion 1 and 2, the real error bodies, the
 * 1 request/second limit per application id, and control endpoints under `/_fake/`.
 */
export class RakutenApiFake {
  readonly catalogue: FakeCatalogue;
  knobs: RakutenFakeKnobs;
  stats: RakutenFakeStats = emptyStats();
  /** Time source (tests may pin it). */
  now: () => number = Date.now;
  readonly #buckets = new Map<string, { tokens: number; atMs: number }>();
  /** Item Search answers per item, kept until the catalogue changes that item. */
  readonly itemBodies: ItemBodyCache;

  constructor(options: { seed?: number; size?: number; knobs?: Partial<RakutenFakeKnobs> } = {}) {
    this.catalogue = new FakeCatalogue({ seed: options.seed, size: options.size });
    this.itemBodies = new ItemBodyCache(this.catalogue);
    this.knobs = { ...DEFAULT_KNOBS, ...options.knobs };
  }

  /** Changes some knobs, leaving the others. */
  setKnobs(patch: Partial<RakutenFakeKnobs>): RakutenFakeKnobs {
    this.knobs = { ...this.knobs, ...patch };
    return this.knobs;
  }

  /** Zeroes the counters and forgets the rate-limit buckets. */
  resetStats(): void {
    this.stats = emptyStats();
    this.#buckets.clear();
  }

  /** The handler for the engine's fake server (Web Request in, Response out). */
  readonly handle = async (request: Request): Promise<Response> => {
    const a = await this.answer({
      method: request.method,
      url: new URL(request.url),
      header: (name) => request.headers.get(name),
      text: () => request.text(),
    });
    // A copy as a plain Uint8Array: BodyInit's DOM typing refuses a Buffer-backed view.
    const body = typeof a.body === "string" ? a.body : new Uint8Array(a.body);
    return new Response(body, { status: a.status, headers: a.headers });
  };

  /** Answers one request: an API call or a control endpoint. */
  async answer(request: FakeRequest): Promise<FakeAnswer> {
    const url = request.url;
    if (url.pathname.startsWith("/_fake/")) return handleControl(this, request);
    const route = apiOfPath(url.pathname);
    if (route === undefined)
      return json({ error: "not_found", error_description: "not found" }, 404);
    const shape: ErrorShape =
      this.knobs.errorShape === "host"
        ? route.style === "openapi"
          ? "new"
          : "old"
        : this.knobs.errorShape;
    const q = url.searchParams;
    const appId = q.get("applicationId") ?? "";
    this.stats.calls++;
    this.stats.byApi[route.api]++;
    if (appId !== "") this.stats.byApplication[appId] = (this.stats.byApplication[appId] ?? 0) + 1;
    const refused = this.#gate(route.style, shape, appId, q, request.header("authorization"));
    if (refused) return refused;
    if (this.knobs.malformed > 0) {
      this.knobs.malformed--;
      this.stats.malformed++;
      const broken = '{"count":1,"Items":[{"itemName":"壊れた';
      return { status: 200, headers: { "content-type": "application/json" }, body: broken };
    }
    if (this.knobs.wrongShape > 0 && (route.api === "item" || route.api === "ranking")) {
      this.knobs.wrongShape--;
      this.stats.wrongShape++;
      return json({});
    }
    const answer = answerApi(this, route.api, q, shape);
    if (answer.status === 404) this.stats.notFound++;
    if (answer.status === 200 && this.knobs.wrongTypes > 0) {
      const wrong = withWrongTypes(answer);
      if (wrong !== answer) {
        this.knobs.wrongTypes--;
        this.stats.wrongTypes++;
      }
      return wrong;
    }
    return answer;
  }

  /** Credentials, maintenance, burst and rate limit: an error answer, or undefined to go on. */
  #gate(
    style: "openapi" | "legacy",
    shape: ErrorShape,
    appId: string,
    q: URLSearchParams,
    authorization: string | null,
  ): FakeAnswer | undefined {
    if (appId === "") return json(errorBody(shape, 400, "specify valid applicationId"), 400);
    const bearer = /^Bearer\s+\S+/i.test(authorization ?? "");
    if (style === "openapi" && this.knobs.requireAccessKey && !q.get("accessKey") && !bearer) {
      return json(errorBody(shape, 400, "accessKey must be present"), 400);
    }
    const retry = { "retry-after": String(this.knobs.retryAfterSeconds) };
    if (this.knobs.maintenance) {
      this.stats.maintenance503++;
      return json(errorBody(shape, 503), 503, retry);
    }
    if (this.knobs.burst429 > 0) {
      this.knobs.burst429--;
      this.stats.burst429++;
      return json(errorBody(shape, 429), 429, retry);
    }
    if (this.knobs.rateLimit && !this.#take(appId)) {
      this.stats.rateLimited++;
      return json(errorBody(shape, 429), 429, retry);
    }
    return undefined;
  }

  /** Token bucket per application id (capacity 1), with `toleranceMs` of early arrival allowed. */
  #take(appId: string): boolean {
    const rate = this.knobs.requestsPerSecond;
    const now = this.now();
    const b = this.#buckets.get(appId) ?? { tokens: 1, atMs: now };
    const tokens = Math.min(1, b.tokens + ((now - b.atMs) * rate) / 1000);
    const needed = 1 - (this.knobs.toleranceMs * rate) / 1000;
    if (tokens < needed) {
      this.#buckets.set(appId, { tokens, atMs: now });
      return false;
    }
    this.#buckets.set(appId, { tokens: tokens - 1, atMs: now });
    return true;
  }
}
