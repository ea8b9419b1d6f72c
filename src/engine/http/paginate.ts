import { z } from "zod";
import type { HttpClient } from "./http-client.ts";
import type { HttpResponse, QueryParams } from "./http-client-types.ts";
import { BadPayloadError, HttpError, type HttpErrorInit } from "./http-errors.ts";
import { parseJsonBody } from "./parse-json-body.ts";

/** What to send for one page; `target` is relative to the client's baseUrl or absolute. */
export interface PageRequest {
  target: string;
  query?: QueryParams;
  /** Default GET. */
  method?: string;
  body?: RequestInit["body"];
  headers?: Readonly<Record<string, string>>;
}

/** How a page's JSON becomes a value: a zod schema, or a function that throws on a bad body. */
export type PageDecoder<T> = { schema: z.ZodType<T> } | { parse: (json: unknown) => T };

/** Options every paginator takes. */
export type PagingOptions<T> = PageDecoder<T> & {
  /** Stop after this many pages (the last one's `next` says where to resume). */
  maxPages?: number;
  /** Aborts the request in flight and stops the iteration with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Items on a page. Given, a page without items that ends the iteration must be the source's
   * documented empty answer (`isEmptyAnswer`), else it is a BadPayloadError. Token and next-URL
   * paging whose schema accepts `{}` must give both (a TypeError otherwise), so that a body
   * lacking every field is never read as the last page.
   */
  itemCount?(page: T): number;
  /** The source's documented empty answer (see `itemCount`). */
  isEmptyAnswer?(page: T): boolean;
};

/** One fetched page and where it sits in the source. */
export interface Page<T, P> {
  data: T;
  /** 0-based, counted from where this iteration started. */
  index: number;
  /** Where this page was fetched from. */
  position: P;
  /** Where the next page starts: persist it as the cursor and pass it as `start` to resume. */
  next: P | undefined;
  /** No page follows this one (`next` is undefined). */
  done: boolean;
  /** The absolute URL this page came from. */
  url: string;
  status: number;
  headers: Headers;
  attempts: number;
}

/** The source's paging went wrong (a token or link repeated, a link to another origin). */
export class PaginationError extends HttpError {
  constructor(detail: string, init: { url: string; status: number; attempts: number }) {
    super(detail, init, false);
  }
}

/** Page-token paging (`nextPageToken` style): position = the token a page was fetched with. */
export type TokenPaging<T> = PagingOptions<T> & {
  /** The request for a page; `token` is undefined for the first. */
  request(token: string | undefined): PageRequest;
  /** The next page's token as the page says it; null, undefined or "" ends the iteration. */
  nextToken(page: T): string | null | undefined;
  /** A persisted `next` to resume from. */
  start?: string;
};

/** Offset/limit paging (`startIndex` style): position = the offset of a page's first item. */
export type OffsetPaging<T> = PagingOptions<T> & {
  request(offset: number, pageSize: number): PageRequest;
  pageSize: number;
  /** Items on the page (an integer >= 0; anything else fails the page). */
  itemCount(page: T): number;
  /**
   * The source's documented empty answer ("no results", "past the end"), e.g. Google Books'
   * `{"kind":"books#volumes","totalItems":0}` without `items`. Only a page this accepts ends the
   * iteration by having no items; any other page without items fails with a BadPayloadError
   * naming the request, so a body that merely lacks the items is never read as the end.
   */
  isEmptyAnswer(page: T): boolean;
  /** The source's total, when it reports one; reaching it ends the iteration. */
  total?(page: T): number | undefined;
  /**
   * How far the next page starts: `pageSize` (default; the source may return fewer items than
   * asked, e.g. after filtering) or `itemCount` (the source caps page sizes below what is asked).
   */
  advance?: "pageSize" | "itemCount";
  /** Ends the iteration after this page when true (e.g. "a short page is the last one"). */
  stop?(page: T, at: { offset: number; itemCount: number; nextOffset: number }): boolean;
  /** A persisted `next` to resume from (default 0). */
  start?: number;
};

/** Next-URL paging (a link in the body or a `Link` header): position = the page's URL. */
export type NextUrlPaging<T> = PagingOptions<T> & {
  /** The first page's request (ignored when resuming from `start`). */
  first: PageRequest;
  /** The next page's URL (relative to this page's), or null/undefined after the last page. */
  nextUrl(page: T, response: { headers: Headers; url: string }): string | null | undefined;
  /** A persisted `next` to resume from. Positions are URLs: keep credentials out of queries. */
  start?: string;
  /** Follow links to another origin (default false: they would receive the client's headers). */
  allowOtherOrigins?: boolean;
};

/** Iterates a page-token API, one page per request, until the source has no next token. */
export function paginateByToken<T>(
  client: HttpClient,
  options: TokenPaging<T>,
): AsyncGenerator<Page<T, string | undefined>, void, undefined> {
  requireEmptyRule(options);
  const seen = new Set<string>();
  return walk<T, string | undefined>(client, options, {
    start: options.start,
    request: (token) => options.request(token),
    next(data, page) {
      const token = options.nextToken(data);
      if (token === null || token === undefined || token === "") return undefined;
      if (token === page.position || seen.has(token)) {
        throw new PaginationError(`page token repeated at page ${page.index + 1}`, page);
      }
      if (page.position !== undefined) seen.add(page.position);
      return token;
    },
  });
}

/**
 * Iterates an offset/limit API. Ends on the source's documented empty answer, when `total` is
 * reached, or when the caller's `stop` says so — never on a merely short page, which many APIs
 * return mid-way, and never on a page without items that is not the documented empty answer.
 */
export function paginateByOffset<T>(
  client: HttpClient,
  options: OffsetPaging<T>,
): AsyncGenerator<Page<T, number>, void, undefined> {
  const { pageSize } = options;
  if (!(Number.isInteger(pageSize) && pageSize >= 1)) {
    throw new RangeError(`pageSize must be an integer >= 1, got ${pageSize}`);
  }
  return walk<T, number>(client, options, {
    start: options.start ?? 0,
    request: (offset) => options.request(offset, pageSize),
    next(data, page, fail) {
      const itemCount = options.itemCount(data);
      if (!(Number.isInteger(itemCount) && itemCount >= 0)) {
        return fail(`(root): item count ${itemCount} is not a whole number`);
      }
      if (itemCount === 0) {
        if (options.isEmptyAnswer(data)) return undefined;
        return fail("(root): no items, and not the source's documented empty answer");
      }
      const nextOffset = page.position + (options.advance === "itemCount" ? itemCount : pageSize);
      const total = options.total?.(data);
      if (total !== undefined && nextOffset >= total) return undefined;
      if (options.stop?.(data, { offset: page.position, itemCount, nextOffset })) return undefined;
      return nextOffset;
    },
  });
}

/** Iterates an API whose pages link to the next one, until a page has no link. */
export function paginateByNextUrl<T>(
  client: HttpClient,
  options: NextUrlPaging<T>,
): AsyncGenerator<Page<T, string>, void, undefined> {
  requireEmptyRule(options);
  const { first, start } = options;
  const firstUrl = start ?? client.resolveUrl(first.target, first.query).href;
  const origin = new URL(firstUrl).origin;
  const seen = new Set<string>();
  return walk<T, string>(client, options, {
    start: firstUrl,
    // Only a fresh iteration's first page is the caller's request; links are plain GETs.
    request: (url) =>
      url === firstUrl && start === undefined ? first : { target: url, headers: first.headers },
    next(data, page) {
      const link = options.nextUrl(data, { headers: page.headers, url: page.url });
      if (link === null || link === undefined || link === "") return undefined;
      let next: URL;
      try {
        next = new URL(link, page.url);
      } catch {
        throw new PaginationError(`next page link is not a URL at page ${page.index + 1}`, page);
      }
      if (next.origin !== origin && !options.allowOtherOrigins) {
        throw new PaginationError(`next page link leaves ${origin} for ${next.origin}`, page);
      }
      seen.add(page.position);
      if (seen.has(next.href)) {
        throw new PaginationError(`next page link repeated at page ${page.index + 1}`, page);
      }
      return next.href;
    },
  });
}

/** What a paginator adds to the shared loop: where to start, how to ask, what comes next. */
interface PagingPlan<T, P> {
  start: P;
  request(position: P): PageRequest;
  /**
   * The next position, or undefined when `page` is the last. `fail(issue)` throws the
   * BadPayloadError of a page whose shape is wrong (issue: `field.path: what is wrong`).
   */
  next(
    data: T,
    page: Omit<Page<T, P>, "data" | "next" | "done">,
    fail: (issue: string) => never,
  ): P | undefined;
}

async function* walk<T, P>(
  client: HttpClient,
  options: PagingOptions<T>,
  plan: PagingPlan<T, P>,
): AsyncGenerator<Page<T, P>, void, undefined> {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1) || (Number.isFinite(maxPages) && !Number.isInteger(maxPages))) {
    throw new RangeError(`maxPages must be an integer >= 1, got ${options.maxPages}`);
  }
  const { signal } = options;
  let position = plan.start;
  for (let index = 0; index < maxPages; index++) {
    signal?.throwIfAborted();
    const request = plan.request(position);
    const url = client.resolveUrl(request.target, request.query).href;
    const response = await client.request(url, {
      method: request.method,
      body: request.body,
      headers: { accept: "application/json", ...request.headers },
      signal,
    });
    const { status, headers, attempts, bodyText } = response;
    const init = { method: (request.method ?? "GET").toUpperCase(), url, status, attempts };
    const data = decode(options, response, init);
    const page = { index, position, url, status, headers, attempts };
    const fail = (issues: string): never => {
      throw new BadPayloadError({ ...init, kind: "schema", bodyText, issues });
    };
    const next = plan.next(data, page, fail);
    if (next === undefined && options.itemCount?.(data) === 0 && !options.isEmptyAnswer?.(data)) {
      fail("(root): no items, and not the source's documented empty answer");
    }
    yield { ...page, data, next, done: next === undefined };
    if (next === undefined) return;
    position = next;
  }
}

/**
 * Refuses a page schema that accepts `{}` unless the caller says what an empty page is: with
 * such a schema a body lacking every field (a proxy's `{}`) would end the iteration as a page.
 */
function requireEmptyRule<T>(options: PagingOptions<T>): void {
  if (!("schema" in options) || options.itemCount !== undefined) return;
  let acceptsEmptyObject: boolean;
  try {
    acceptsEmptyObject = options.schema.safeParse({}).success;
  } catch {
    acceptsEmptyObject = false;
  }
  if (acceptsEmptyObject) {
    throw new TypeError(
      "the page schema accepts {}: make the fields every page has required, or give itemCount and isEmptyAnswer (the source's documented empty answer)",
    );
  }
}

function decode<T>(decoder: PageDecoder<T>, response: HttpResponse, init: HttpErrorInit): T {
  const { bodyText, headers } = response;
  if (!("parse" in decoder)) return parseJsonBody(bodyText, headers, decoder.schema, init);
  const json = parseJsonBody(bodyText, headers, z.unknown(), init);
  try {
    return decoder.parse(json);
  } catch (err) {
    const issues = err instanceof Error ? err.message : String(err);
    throw new BadPayloadError({ ...init, kind: "schema", bodyText, issues, cause: err });
  }
}
