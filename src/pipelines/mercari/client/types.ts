import { ExitCode, TidemarkError } from "tidemark";

/** An item's state on Mercari, normalised from the search (`ITEM_STATUS_*`) and detail forms. */
export type MercariItemStatus = "on_sale" | "sold_out" | "trading";

/** Who sells it: a person (regular `m…` item) or a Mercari Shops shop. */
export type MercariSellerType = "user" | "shop";

/** One search hit or item detail, normalised. */
export interface MercariItem {
  /** `m` + digits for a regular item, 22 alphanumerics for a Shops product. */
  id: string;
  name: string;
  /**
   * Yen, an integer; null when the listing shows no price (Mercari's `isNoPrice` placeholder),
   * which is never a price observation.
   */
  price: number | null;
  status: MercariItemStatus;
  sellerType: MercariSellerType;
  /** The seller's user id or the shop's id; null when the response names neither. */
  sellerId: string | null;
  /** First thumbnail or photo; "" when the item has none. */
  thumbnailUrl: string;
  /** The item's page on jp.mercari.com. */
  url: string;
  /** ISO-8601 UTC. */
  created: string;
  /** ISO-8601 UTC; for a sold item the usual approximation of when it sold (moves on edits too). */
  updated: string;
  /** Mercari category id, when the response carries one. */
  categoryId: number | null;
  /** A Shops product on a running time sale: when the sale (and `price`) ends; else null. */
  timeSaleUntil?: string | null;
}

/** A search result row. */
export type SearchItem = MercariItem;

/** An item detail (regular item or Shops product). */
export type ItemDetail = MercariItem;

/** One search page request. Results are always newest first (SORT_CREATED_TIME, ORDER_DESC). */
export interface SearchQuery {
  keyword: string;
  /** Words Mercari leaves out of the results (`excludeKeyword`); null or "" for none. */
  excludeKeyword?: string | null;
  categoryId?: number | null;
  priceMin?: number | null;
  priceMax?: number | null;
  /** Statuses to include; default every status (on sale, trading, sold out). */
  status?: readonly MercariItemStatus[];
  /** "" or undefined for the first page, then the previous page's nextPageToken. */
  pageToken?: string;
  /** Items per page (default the settings' page_size). */
  pageSize?: number;
}

/** One search page. */
export interface SearchPage {
  items: SearchItem[];
  /** null on the last page (Mercari answers ""). Never infer the end from a short page. */
  nextPageToken: string | null;
  /**
   * Mercari's `meta.numFound`, when given: an **estimate** (often above what the pages hold);
   * never a page count, a stop condition or a summary figure of its own.
   */
  numFound: number | null;
}

/** The typed client of Mercari's JSON API (search, item detail, Shops product). */
export interface MercariClient {
  /** One search page; throws MercariBlockedError when Mercari blocks us. */
  search(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage>;
  /** A regular item (`m…`); "not_found" on 404 / RecordNotFound. */
  getItem(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found">;
  /** A Mercari Shops product; "not_found" on 404. */
  getShopsProduct(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found">;
  /** getItem or getShopsProduct, chosen by the id's form (isShopsId). */
  getDetail(id: string, signal?: AbortSignal): Promise<ItemDetail | "not_found">;
}

/** Why a response counts as a block rather than an answer. */
export type MercariBlockReason =
  | "http_403"
  | "http_429"
  | "html_block_page"
  /** The first search page came back empty for a product that had results before. */
  | "empty_first_page";

/**
 * Mercari is blocking this client (403/429 after retries, an HTML block page, or an empty first
 * page where results were expected). Never mistaken for "no items": callers delete nothing and
 * the message is retried later. Exit code 1.
 */
export class MercariBlockedError extends TidemarkError {
  readonly kind = "blocked" as const;
  constructor(
    readonly reason: MercariBlockReason,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`blocked: ${reason.replaceAll("_", " ")} (${detail})`, ExitCode.jobFailed, options);
  }
}

/**
 * A search answered a `nextPageToken` already read in the same crawl: the paging loops, so the
 * crawl fails (its pages say nothing about what lies beyond) instead of reading the same page
 * to the page cap. Exit code 1.
 */
export class MercariPagingError extends TidemarkError {
  constructor(
    readonly keyword: string,
    readonly token: string,
    readonly page: number,
  ) {
    super(
      `mercari search for ${JSON.stringify(keyword)}: meta.nextPageToken ${JSON.stringify(token)} of page ${page} repeats a token already read in this crawl; the crawl stops as failed`,
      ExitCode.jobFailed,
    );
  }
}

/** True for a MercariBlockedError (also across module copies, by name). */
export function isMercariBlocked(err: unknown): err is MercariBlockedError {
  return (
    err instanceof MercariBlockedError ||
    (err instanceof Error && err.name === "MercariBlockedError" && "reason" in err)
  );
}

/** Regular item ids: `m` followed by digits (`m14002428417`). */
const REGULAR_ID = /^m\d{5,20}$/;
/** Mercari Shops product ids: 22 letters and digits (`uU4Ahinr6rGNFLNYQpa9E7`). */
const SHOPS_ID = /^[A-Za-z0-9]{22}$/;

/** True when `id` is a Mercari Shops product id rather than a regular `m…` item id. */
export function isShopsId(id: string): boolean {
  return !REGULAR_ID.test(id) && SHOPS_ID.test(id);
}

/** True when `id` has either known form (checked before it goes into a URL). */
export function isMercariId(id: string): boolean {
  return REGULAR_ID.test(id) || SHOPS_ID.test(id);
}

/** The item's page on jp.mercari.com. */
export function itemPageUrl(id: string, webUrl = "https://jp.mercari.com"): string {
  return isShopsId(id) ? `${webUrl}/shops/product/${id}` : `${webUrl}/item/${id}`;
}
