import type { Kysely } from "kysely";
import { isoTimestamp } from "tidemark/kit";
import { RAKUTEN_SOURCE } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { RankRepo } from "./rank-repo.ts";

/**
 * Which targets each job works on (the "saved today" policy of docs/pipelines/rakuten.md). "Updated today" means a staging row of
 * entity `item` whose raw document was saved at or after 00:00 UTC of the run's start day;
 * genres and tags are found by joining those rows to apl.item / apl.item_tag.
 */
export class RakutenPolicy {
  /** Built once with the policy (once per run), not per call. */
  private readonly ranks: RankRepo;

  constructor(private readonly db: Kysely<RakutenTables>) {
    this.ranks = new RankRepo(db);
  }

  /** Ranking targets: the job's genre ids, deduplicated, in the given order. */
  rankingGenreIds(genreIds: readonly number[]): string[] {
    return [...new Set(genreIds.map(String))];
  }

  /**
   * Item targets: the item codes of the current rankings of `genreIds` (every ranked genre
   * when undefined), then the job's own item codes, without duplicates.
   */
  async itemCodes(
    genreIds: readonly number[] | undefined,
    extra: readonly string[],
  ): Promise<string[]> {
    const ranked = await this.ranks.currentItemCodes(genreIds);
    return [...new Set([...ranked, ...extra])];
  }

  /** The genres of `genreIds` with no stored ranking: they give `rakuten.item` no target. */
  async genresWithoutRanking(genreIds: readonly number[]): Promise<number[]> {
    if (genreIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("apl.rank_snapshot")
      .select("rakuten_genre_id")
      .distinct()
      .where("rakuten_genre_id", "in", [...genreIds])
      .execute();
    const ranked = new Set(rows.map((r) => Number(r.rakuten_genre_id)));
    return [...new Set(genreIds)].filter((g) => !ranked.has(g));
  }

  /** Genre targets: genre ids of the items saved today, plus `extra`, ascending. */
  async genreIdsFromTodayItems(dayStart: Date, extra: readonly number[] = []): Promise<string[]> {
    const rows = await this.db
      .selectFrom("apl.staging as s")
      .innerJoin("apl.item as i", "i.rakuten_item_code", "s.source_id")
      .select("i.rakuten_genre_id")
      .distinct()
      .where("s.source", "=", RAKUTEN_SOURCE)
      .where("s.entity", "=", "item")
      .where("s.saved_at", ">=", isoTimestamp(dayStart))
      .where("i.rakuten_genre_id", "is not", null)
      .execute();
    return sortedIds([...rows.map((r) => Number(r.rakuten_genre_id)), ...extra]);
  }

  /** Tag targets: tag ids of the items saved today, plus `extra`, ascending. */
  async tagIdsFromTodayItems(dayStart: Date, extra: readonly number[] = []): Promise<string[]> {
    const rows = await this.db
      .selectFrom("apl.staging as s")
      .innerJoin("apl.item as i", "i.rakuten_item_code", "s.source_id")
      .innerJoin("apl.item_tag as t", "t.item_id", "i.id")
      .select("t.rakuten_tag_id")
      .distinct()
      .where("s.source", "=", RAKUTEN_SOURCE)
      .where("s.entity", "=", "item")
      .where("s.saved_at", ">=", isoTimestamp(dayStart))
      .execute();
    return sortedIds([...rows.map((r) => Number(r.rakuten_tag_id)), ...extra]);
  }
}

function sortedIds(ids: readonly number[]): string[] {
  return [...new Set(ids)].sort((a, b) => a - b).map(String);
}
