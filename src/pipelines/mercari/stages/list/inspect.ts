import type { CrawlResultRepo } from "../../repos/crawl-result-repo.ts";
import type { MatchRow } from "./match.ts";

/** What inspect keeps: rows matching the setting that this crawl did not see unfit. */
export interface Inspection {
  readonly matches: (row: MatchRow) => boolean;
  /** Listings this crawl saw without a price or priced out of the range. */
  readonly seenUnfit: ReadonlyArray<ReadonlySet<string>>;
}

/**
 * inspect: physically deletes every stored row of the product that no longer matches its
 * setting (found under another setting, or its price moved out of the range) and every row of
 * a listing this crawl saw unfit. Runs in the crawl's last fenced transaction, once the whole
 * search is read; returns how many rows went.
 */
export async function inspect(
  results: CrawlResultRepo,
  productId: number,
  { matches, seenUnfit }: Inspection,
): Promise<number> {
  const stale = (await results.matchFields(productId))
    .filter((r) => !matches(r) || seenUnfit.some((ids) => ids.has(r.external_id)))
    .map((r) => r.id);
  return results.deleteIds(stale);
}
