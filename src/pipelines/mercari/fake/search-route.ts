import { z } from "zod";
import type { Catalogue } from "./catalogue.ts";
import type { CatalogueQuery } from "./catalogue-types.ts";
import type { FakeStatus } from "./listing.ts";
import { searchItemJson } from "./responses.ts";

const STATUS: Record<string, FakeStatus> = {
  STATUS_ON_SALE: "on_sale",
  STATUS_TRADING: "trading",
  STATUS_SOLD_OUT: "sold_out",
};

const intLike = z.union([z.number(), z.string().regex(/^\d+$/)]).transform(Number);

const bodySchema = z.looseObject({
  pageSize: z.number().int().min(1).max(200).default(120),
  pageToken: z.string().default(""),
  searchSessionId: z.string().optional(),
  searchCondition: z.looseObject({
    keyword: z.string().default(""),
    excludeKeyword: z.string().default(""),
    sort: z
      .enum(["SORT_CREATED_TIME", "SORT_PRICE", "SORT_SCORE", "SORT_NUM_LIKES"])
      .default("SORT_SCORE"),
    order: z.enum(["ORDER_DESC", "ORDER_ASC"]).default("ORDER_DESC"),
    status: z.array(z.enum(Object.keys(STATUS) as [string, ...string[]])).default([]),
    categoryId: z.array(intLike).default([]),
    priceMin: intLike.default(0),
    priceMax: intLike.default(0),
  }),
});

/** A page token: "v1:<page index>" ("" = the first page). */
function pageIndex(token: string): number | undefined {
  if (token === "") return 0;
  const m = /^v1:(\d+)$/.exec(token);
  return m ? Number(m[1]) : undefined;
}

/** Items a short page leaves out (when short pages are on, every third page from the second). */
const SHORT_BY = 7;

/** Where page `index` starts and how many items it holds. */
function pageSpan(index: number, size: number, short: boolean): { start: number; size: number } {
  if (!short) return { start: index * size, size };
  const cut = Math.min(SHORT_BY, size - 1);
  const shortBefore = Math.floor((index + 1) / 3);
  return { start: index * size - cut * shortBefore, size: index % 3 === 1 ? size - cut : size };
}

/**
 * Mercari's `numFound` is an estimate, often above what the pages hold (150 claimed, 143
 * returned): the fake claims about 5% more than it has.
 */
function overstated(count: number): number {
  return count === 0 ? 0 : count + Math.ceil(count / 20);
}

/** How the search answers: blocked (empty pages) and/or with short pages in the middle. */
export interface SearchMode {
  blocked: boolean;
  shortPages: boolean;
  /** Pages from the second answer the token they were asked with as the next one (a loop). */
  repeatPageToken?: boolean;
}

/**
 * One page of `POST /v2/entities:search`, or an error text for a 400. A blocked client gets
 * the empty page; with short pages on, some pages hold fewer items although more follow.
 */
export function searchPage(
  catalogue: Catalogue,
  raw: unknown,
  mode: SearchMode,
): Record<string, unknown> | { error: string } {
  const parsed = bodySchema.safeParse(raw);
  if (!parsed.success) return { error: `invalid search request: ${parsed.error.message}` };
  const body = parsed.data;
  const index = pageIndex(body.pageToken);
  if (index === undefined) return { error: `invalid pageToken ${JSON.stringify(body.pageToken)}` };
  const c = body.searchCondition;
  const query: CatalogueQuery = {
    keyword: c.keyword,
    excludeKeyword: c.excludeKeyword,
    statuses: c.status.map((s) => STATUS[s] as FakeStatus),
    categoryIds: c.categoryId,
    priceMin: c.priceMin,
    priceMax: c.priceMax,
    sort: c.sort,
    order: c.order,
  };
  const all = mode.blocked ? [] : catalogue.search(query);
  const { start, size } = pageSpan(index, body.pageSize, mode.shortPages);
  const items = all.slice(start, start + size);
  const more = start + size < all.length;
  return {
    meta: {
      nextPageToken: more ? `v1:${mode.repeatPageToken && index > 0 ? index : index + 1}` : "",
      previousPageToken: index > 0 ? `v1:${index - 1}` : "",
      numFound: String(overstated(all.length)),
    },
    items: items.map(searchItemJson),
    components: [],
    searchCondition: c,
    searchConditionId: "",
    searchSessionId: body.searchSessionId ?? "",
  };
}
