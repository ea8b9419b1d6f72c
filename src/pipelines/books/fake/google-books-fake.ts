import { pacificDay } from "../client/pacific-day.ts";
import { buildCorpus, type Corpus, seeded } from "./corpus.ts";
import {
  dailyQuotaError,
  googleError,
  injectedError,
  perMinuteQuotaError,
} from "./google-errors.ts";

/** The real API's oddities, each switchable (all on by default, as in production). */
export interface Quirks {
  /** `totalItems` moves by a few between pages and with `maxResults`. */
  drift: boolean;
  /** Some pages come back a few items short although more exist. */
  shortPages: boolean;
  /** Sometimes the last item of the previous page shows up again first (ranking shifts). */
  repeats: boolean;
}

/** Fault knobs, changeable while the fake runs. */
export interface FakeKnobs {
  /** Statuses (Google-shaped bodies) for the next `/volumes` requests, consumed in order. */
  failNext: number[];
  /**
   * Bodies answered with 200 (as JSON) to the next `/volumes` requests, consumed in order after
   * `failNext`: what a broken proxy or a changed API sends (`{}`, wrong types, `items: []`).
   * A null entry lets that request be answered normally.
   */
  answerNext: (string | null)[];
  /** Every request gets the daily-quota 429, as when the project's quota is spent. */
  quotaExhausted: boolean;
  /** The next N requests get the per-minute 429 (retryable). */
  perMinuteLimited: number;
  quirks: Quirks;
  /** Requests allowed per key (or keyless) per Pacific-time day; unlimited when undefined. */
  dailyQuota: number | undefined;
}

/** Construction options of the fake. */
export interface GoogleBooksFakeOptions {
  /** Exact result counts for some queries (by trimmed `q`); others are seeded (40–1,399). */
  sizes?: Readonly<Record<string, number>>;
  quirks?: Partial<Quirks>;
  /** When set, requests must carry one of these keys (`key=`), else 400 "API key not valid". */
  apiKeys?: readonly string[];
  dailyQuota?: number;
  /** Clock of the quota day (default: the wall clock). */
  now?: () => Date;
}

/** One `/volumes` call as the fake saw it. */
export interface FakeCall {
  q: string | null;
  startIndex: number;
  maxResults: number;
  key: string | undefined;
  status: number;
  returned: number;
}

const VOLUMES = "/books/v1/volumes";

function intParam(value: string | null, fallback: number): number | undefined {
  if (value === null || value === "") return fallback;
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * A realistic fake of Google Books `GET /books/v1/volumes`: seeded corpus per query, drifting
 * totalItems, short pages, repeated items, results ending near 1,000, `items` absent past the
 * end, 400 on maxResults > 40, a daily quota answering Google's 429, and fault knobs. Product
 * code: `tidemark demo` serves it; tests wrap it in the fault-injecting test server.
 */
export class GoogleBooksFake {
  readonly knobs: FakeKnobs;
  readonly calls: FakeCall[] = [];
  readonly #sizes: Readonly<Record<string, number>>;
  readonly #apiKeys: ReadonlySet<string> | undefined;
  readonly #now: () => Date;
  readonly #corpora = new Map<string, Corpus>();
  readonly #usage = new Map<string, number>();

  constructor(options: GoogleBooksFakeOptions = {}) {
    this.#sizes = options.sizes ?? {};
    this.#apiKeys = options.apiKeys ? new Set(options.apiKeys) : undefined;
    this.#now = options.now ?? (() => new Date());
    this.knobs = {
      failNext: [],
      answerNext: [],
      quotaExhausted: false,
      perMinuteLimited: 0,
      quirks: { drift: true, shortPages: true, repeats: true, ...options.quirks },
      dailyQuota: options.dailyQuota,
    };
  }

  /** The fetch-style handler (served with `startFakeServer(fake.handle)`). */
  readonly handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== VOLUMES) {
      return googleError(404, "Not Found", "notFound", { status: "NOT_FOUND" });
    }
    if (request.method !== "GET") {
      return googleError(405, "Method Not Allowed", "httpMethodNotAllowed");
    }
    const sp = url.searchParams;
    const call: FakeCall = {
      q: sp.get("q"),
      startIndex: Number(sp.get("startIndex") ?? 0),
      maxResults: Number(sp.get("maxResults") ?? 10),
      key: sp.get("key") ?? undefined,
      status: 200,
      returned: 0,
    };
    this.calls.push(call);
    const response = this.#answer(sp, call);
    call.status = response.status;
    return response;
  };

  /** Requests counted today for a key (undefined = keyless). */
  quotaUsed(key?: string): number {
    return this.#usage.get(`${key ?? ""}|${pacificDay(this.#now())}`) ?? 0;
  }

  /** Forgets calls and quota usage and clears the fault knobs (quirks stay). */
  reset(): void {
    this.calls.length = 0;
    this.#usage.clear();
    this.knobs.failNext = [];
    this.knobs.answerNext = [];
    this.knobs.quotaExhausted = false;
    this.knobs.perMinuteLimited = 0;
  }

  #answer(sp: URLSearchParams, call: FakeCall): Response {
    const knobs = this.knobs;
    if (this.#apiKeys && (call.key === undefined || !this.#apiKeys.has(call.key))) {
      return googleError(400, "API key not valid. Please pass a valid API key.", "badRequest", {
        status: "INVALID_ARGUMENT",
      });
    }
    const injected = knobs.failNext.shift();
    if (injected !== undefined) return injectedError(injected);
    const answer = knobs.answerNext.shift();
    if (answer !== undefined && answer !== null) {
      return new Response(answer, { headers: { "content-type": "application/json" } });
    }
    if (knobs.quotaExhausted) return dailyQuotaError(knobs.dailyQuota ?? 1000);
    if (knobs.perMinuteLimited > 0) {
      knobs.perMinuteLimited--;
      return perMinuteQuotaError();
    }
    if (knobs.dailyQuota !== undefined) {
      const usageKey = `${call.key ?? ""}|${pacificDay(this.#now())}`;
      const used = this.#usage.get(usageKey) ?? 0;
      if (used >= knobs.dailyQuota) return dailyQuotaError(knobs.dailyQuota);
      this.#usage.set(usageKey, used + 1);
    }

    const q = (sp.get("q") ?? "").trim();
    if (q === "") {
      return googleError(400, "Missing query.", "required", {
        status: "INVALID_ARGUMENT",
        location: "q",
      });
    }
    const maxResults = intParam(sp.get("maxResults"), 10);
    if (maxResults === undefined || maxResults > 40) {
      return googleError(400, "Values must be within the range: [0, 40]", "invalid", {
        status: "INVALID_ARGUMENT",
        location: "maxResults",
      });
    }
    const startIndex = intParam(sp.get("startIndex"), 0);
    if (startIndex === undefined) {
      return googleError(400, "Values must be within the range: [0, 2147483647]", "invalid", {
        status: "INVALID_ARGUMENT",
        location: "startIndex",
      });
    }
    return this.#page(q, sp, startIndex, maxResults, call);
  }

  #page(
    q: string,
    sp: URLSearchParams,
    startIndex: number,
    maxResults: number,
    call: FakeCall,
  ): Response {
    const { quirks } = this.knobs;
    const key = {
      q,
      langRestrict: sp.get("langRestrict") ?? undefined,
      printType: sp.get("printType") ?? undefined,
      filter: sp.get("filter") ?? undefined,
    };
    const orderBy = sp.get("orderBy") ?? undefined;
    const cacheKey = JSON.stringify([key, orderBy]);
    let corpus = this.#corpora.get(cacheKey);
    if (!corpus) {
      corpus = buildCorpus(key, orderBy, this.#sizes[q]);
      this.#corpora.set(cacheKey, corpus);
    }
    const empty = { kind: "books#volumes", totalItems: 0 };
    // Past the true end Google answers without `items`, often with totalItems 0.
    if (startIndex >= corpus.size) return Response.json(empty);
    const drift = quirks.drift ? (seeded(q, startIndex, maxResults, "drift") % 5) - 2 : 0;
    const totalItems = Math.max(0, corpus.size + drift);
    // Between ~1,000 and the claimed total: no items although totalItems says there are more.
    if (maxResults === 0 || startIndex >= corpus.reachable) {
      return Response.json({ kind: "books#volumes", totalItems });
    }
    let end = Math.min(startIndex + maxResults, corpus.reachable);
    const roll = seeded(q, startIndex, maxResults, "short");
    if (quirks.shortPages && end - startIndex >= 10 && roll % 4 === 0) end -= 1 + (roll % 3);
    const items = corpus.volumes.slice(startIndex, end);
    if (quirks.repeats && startIndex > 0 && items.length > 1) {
      if (seeded(q, startIndex, "repeat") % 5 === 0) items[0] = corpus.volumes[startIndex - 1]!;
    }
    call.returned = items.length;
    return Response.json({ kind: "books#volumes", totalItems, items });
  }
}
