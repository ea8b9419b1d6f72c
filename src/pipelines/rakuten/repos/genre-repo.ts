import type { Kysely, Transaction } from "kysely";
import type { NormalizedGenre } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** Genres. */
export class GenreRepo {
  constructor(
    private readonly db: Db,
    private readonly now: string,
  ) {}

  /** Inserts or updates the genre (its parent is the last of its ancestors); returns its id. */
  async upsertGenre(doc: NormalizedGenre, contentHash: string): Promise<number> {
    const values = {
      genre_name: doc.genreName,
      genre_level: doc.genreLevel,
      parent_genre_id: doc.parents.at(-1)?.genreId ?? null,
      content_hash: contentHash,
      updated_at: this.now,
    };
    await this.db
      .insertInto("apl.genre")
      .values({ rakuten_genre_id: doc.genreId, ...values, created_at: this.now })
      .onConflict((oc) => oc.column("rakuten_genre_id").doUpdateSet(values))
      .execute();
    return doc.genreId;
  }
}
