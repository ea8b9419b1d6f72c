import { countFailedAnswer } from "../../client/blocked.ts";
import {
  MercariBlockedError,
  type MercariClient,
  MercariPagingError,
  type SearchItem,
} from "../../client/types.ts";

/** What the search phase is asked to read. */
export interface ListCrawlPlan {
  keyword: string;
  /** Words the search leaves out; null for none. */
  excludeKeyword: string | null;
  categoryId: number | null;
  minPrice: number | null;
  maxPrice: number | null;
  /** Pages to read at most (first run: first_run_max_pages; later: pages_per_run). */
  maxPages: number;
  pageSize: number;
  /** Stored results match the setting: an empty first page then means a block, not "no items". */
  hadResults: boolean;
}

/** The listings found, newest first, each once. */
export interface ListCrawlOutcome {
  items: SearchItem[];
  pages: number;
  /** The first page's `numFound`: Mercari's estimate, shown as such, never relied on. */
  numFoundEstimate: number | null;
}

/** Called with each page's listings not seen on an earlier page, before the next is read. */
export type OnListPage = (fresh: readonly SearchItem[]) => void | Promise<void>;

/**
 * Reads the product's search, newest first, following `nextPageToken` until it is null or the
 * page cap is reached (a short page never ends it); a token already read in this crawl throws
 * MercariPagingError (a paging loop is a failure, not the last page). Touches no database itself; `onPage` hears
 * of each page's new listings as they come. Throws MercariBlockedError when the client sees a
 * block, or when the first page is empty for a product that had results.
 */
export async function crawlMercariList(
  client: MercariClient,
  plan: ListCrawlPlan,
  signal?: AbortSignal,
  onPage?: OnListPage,
): Promise<ListCrawlOutcome> {
  const seen = new Map<string, SearchItem>();
  let token: string | null = "";
  let pages = 0;
  const asked = new Set<string>([""]);
  let numFoundEstimate: number | null = null;
  while (token !== null && pages < plan.maxPages) {
    signal?.throwIfAborted();
    const page = await client.search(
      {
        keyword: plan.keyword,
        excludeKeyword: plan.excludeKeyword,
        categoryId: plan.categoryId,
        priceMin: plan.minPrice,
        priceMax: plan.maxPrice,
        pageToken: token,
        pageSize: plan.pageSize,
      },
      signal,
    );
    pages += 1;
    if (pages === 1) numFoundEstimate = page.numFound;
    if (pages === 1 && page.items.length === 0 && plan.hadResults) {
      throw new MercariBlockedError(
        "empty_first_page",
        `search for ${JSON.stringify(plan.keyword)} came back empty although results were stored before`,
      );
    }
    const fresh: SearchItem[] = [];
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.set(item.id, item);
      fresh.push(item);
    }
    token = page.nextPageToken;
    if (token !== null && asked.has(token)) {
      countFailedAnswer("search", "repeated_page_token");
      throw new MercariPagingError(plan.keyword, token, pages);
    }
    if (token !== null) asked.add(token);
    if (onPage && fresh.length > 0) await onPage(fresh);
  }
  return { items: [...seen.values()], pages, numFoundEstimate };
}
