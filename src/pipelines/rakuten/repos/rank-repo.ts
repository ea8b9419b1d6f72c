import type { Kysely, Transaction } from "kysely";
import type { NormalizedRanking } from "../normalize/types.ts";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** Rank snapshots (seed's RankRepo): one row per position each time a genre's ranking changed. */
export class RankRepo {
  constructor(private readonly db: Db) {}

  /**
   * Inserts the ranking as a snapshot, unless the genre's latest snapshot already holds this
   * content (a re-apply adds nothing). Returns the number of rows inserted.
   */
  async insertRankSnapshot(input: {
    runId: string;
    ranking: NormalizedRanking;
    contentHash: string;
    collectedAt: string;
  }): Promise<number> {
    const { ranking } = input;
    const last = await this.db
      .selectFrom("apl.rank_snapshot")
      .select("content_hash")
      .where("rakuten_genre_id", "=", ranking.genreId)
      .orderBy("collected_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    if (last?.content_hash === input.contentHash || ranking.items.length === 0) return 0;
    await this.db
      .insertInto("apl.rank_snapshot")
      .values(
        ranking.items.map((e) => ({
          run_id: input.runId,
          rakuten_genre_id: ranking.genreId,
          rank: e.rank,
          rakuten_item_code: e.itemCode,
          item_name: e.itemName,
          item_price: e.itemPrice,
          rakuten_shop_code: e.shopCode,
          review_count: e.reviewCount,
          review_average: e.reviewAverage,
          content_hash: input.contentHash,
          collected_at: input.collectedAt,
        })),
      )
      .execute();
    return ranking.items.length;
  }

  /**
   * Item codes of the current (latest) ranking of each genre, in rank order; all genres with a
   * snapshot when `genreIds` is undefined.
   */
  async currentItemCodes(genreIds?: readonly number[]): Promise<string[]> {
    let latest = this.db
      .selectFrom("apl.rank_snapshot")
      .select(["rakuten_genre_id", (eb) => eb.fn.max("id").as("last_id")])
      .groupBy("rakuten_genre_id");
    if (genreIds !== undefined) {
      if (genreIds.length === 0) return [];
      latest = latest.where("rakuten_genre_id", "in", genreIds);
    }
    const rows = await this.db
      .selectFrom("apl.rank_snapshot as r")
      .innerJoin(latest.as("l"), "l.rakuten_genre_id", "r.rakuten_genre_id")
      .innerJoin("apl.rank_snapshot as lr", "lr.id", "l.last_id")
      .select(["r.rakuten_item_code"])
      .whereRef("r.run_id", "=", "lr.run_id")
      .whereRef("r.content_hash", "=", "lr.content_hash")
      .orderBy("r.rakuten_genre_id")
      .orderBy("r.rank")
      .execute();
    return rows.map((r) => r.rakuten_item_code);
  }
}
