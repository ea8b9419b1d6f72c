import type { Kysely } from "kysely";
import type { RakutenTables } from "../tables.ts";

/** An item's stored embedding: the model, the vector length and the vector (JSON text). */
export interface StoredEmbedding {
  model: string;
  dimensions: number;
  vector: string;
}

/** Reads of `apl.item_embedding` for `rakuten similar` (no writes). */
export class EmbeddingScanRepo {
  constructor(private readonly db: Kysely<RakutenTables>) {}

  /** The item's embedding, or undefined when it has none yet. */
  embeddingOf(itemCode: string): Promise<StoredEmbedding | undefined> {
    return this.db
      .selectFrom("apl.item_embedding")
      .select(["model", "dimensions", "vector"])
      .where("item_code", "=", itemCode)
      .executeTakeFirst();
  }

  /** One page of the embeddings of a model and length, by item code after `after`. */
  page(
    of: { model: string; dimensions: number },
    after: string,
    limit: number,
  ): Promise<Array<{ item_code: string; vector: string }>> {
    return this.db
      .selectFrom("apl.item_embedding")
      .select(["item_code", "vector"])
      .where("model", "=", of.model)
      .where("dimensions", "=", of.dimensions)
      .where("item_code", ">", after)
      .orderBy("item_code")
      .limit(limit)
      .execute();
  }
}
