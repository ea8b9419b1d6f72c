import type { Kysely, Transaction } from "kysely";
import { type NormalizedRanking, RAKUTEN_SOURCE } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** Rank snapshots: one row per position each time a genre's ranking changed. */
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
      .select(["r.rakuten_item_code", "r.rakuten_genre_id", "lr.content_hash"])
      .whereRef("r.run_id", "=", "lr.run_id")
      .whereRef("r.content_hash", "=", "lr.content_hash")
      .orderBy("r.rakuten_genre_id")
      .orderBy("r.rank")
      .execute();
    const emptied = await this.#emptiedGenres(rows);
    return rows.filter((r) => !emptied.has(r.rakuten_genre_id)).map((r) => r.rakuten_item_code);
  }

  /**
   * Genres whose applied ranking (the ledger's) is not their latest snapshot: a ranking that came
   * back empty has no row to snapshot, so the snapshot before it is no longer current.
   */
  async #emptiedGenres(
    latest: ReadonlyArray<{ rakuten_genre_id: number; content_hash: string }>,
  ): Promise<Set<number>> {
    const snapshotHash = new Map(latest.map((r) => [String(r.rakuten_genre_id), r.content_hash]));
    if (snapshotHash.size === 0) return new Set();
    const ledger = await this.db
      .selectFrom("apl.staging")
      .select(["source_id", "content_hash"])
      .where("source", "=", RAKUTEN_SOURCE)
      .where("entity", "=", "ranking")
      .where("source_id", "in", [...snapshotHash.keys()])
      .where("applied_version", "is not", null)
      .execute();
    return new Set(
      ledger
        .filter((row) => row.content_hash !== snapshotHash.get(row.source_id))
        .map((row) => Number(row.source_id)),
    );
  }
}
