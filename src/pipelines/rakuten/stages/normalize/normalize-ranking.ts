import type { RakutenRankingItemPayload } from "../../client/schemas.ts";
import { num, requiredText, sortKeys, text } from "./rules.ts";
import type { NormalizedRanking, NormalizedRankingEntry } from "./types.ts";

/** What a ranking normalization needs: the genre asked for, the title and the items. */
export interface RankingInput {
  genreId: number;
  title: string | null;
  Items: readonly RakutenRankingItemPayload[];
}

/**
 * A Ranking answer → its normalized document. Entries stay in the API's order (the ranking's
 * meaning); `lastBuildDate` and the meta keys are left out; text trimmed, empty → null
 * (title, itemName, shopCode, shopName).
 */
export function normalizeRanking(raw: RankingInput): NormalizedRanking {
  return sortKeys<NormalizedRanking>({
    genreId: raw.genreId,
    title: text(raw.title),
    items: raw.Items.map(
      (it): NormalizedRankingEntry =>
        sortKeys<NormalizedRankingEntry>({
          rank: it.rank,
          itemCode: requiredText(it.itemCode, "itemCode"),
          itemName: text(it.itemName),
          itemPrice: num(it.itemPrice),
          reviewCount: num(it.reviewCount),
          reviewAverage: num(it.reviewAverage),
          shopCode: text(it.shopCode),
          shopName: text(it.shopName),
          genreId: num(it.genreId),
        }),
    ),
  });
}
