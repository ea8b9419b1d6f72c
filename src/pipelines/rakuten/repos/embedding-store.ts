import type { Kysely, Transaction } from "kysely";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** An item as the source-text recipe reads it. */
export interface SourceItem {
  id: number;
  itemCode: string;
  itemName: string | null;
  catchcopy: string | null;
  itemCaption: string | null;
  genreName: string | null;
}

/** Why an item is embedded (the embedding diff). */
export type EmbedReason = "missing" | "source_changed" | "model_changed" | "version_changed";

/** One item to embed. */
export interface EmbedTarget {
  itemCode: string;
  sourceText: string;
  sourceHash: string;
  reason: EmbedReason;
}

/** A computed embedding, as written. */
export interface EmbeddingWrite {
  itemCode: string;
  model: string;
  sourceHash: string;
  vector: number[];
  /** The apply version the vector is stored under. */
  appliedVersion: number;
}

/** Reads and writes of `apl.item_embedding_source` and `apl.item_embedding`. */
export class EmbeddingStore {
  constructor(private readonly db: Db) {}

  /** Items after `afterCode` in item-code order (keyset paging), with their genre's name. */
  async itemPage(afterCode: string, limit: number): Promise<SourceItem[]> {
    const rows = await this.db
      .selectFrom("apl.item as i")
      .leftJoin("apl.genre as g", "g.rakuten_genre_id", "i.rakuten_genre_id")
      .select([
        "i.id",
        "i.rakuten_item_code",
        "i.item_name",
        "i.catchcopy",
        "i.item_caption",
        "g.genre_name",
      ])
      .where("i.rakuten_item_code", ">", afterCode)
      .orderBy("i.rakuten_item_code")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      itemCode: r.rakuten_item_code,
      itemName: r.item_name,
      catchcopy: r.catchcopy,
      itemCaption: r.item_caption,
      genreName: r.genre_name ?? null,
    }));
  }

  /** Tag names per item id, in tag-id order (tags not fetched yet are left out). */
  async tagNames(itemIds: readonly number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (itemIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("apl.item_tag as it")
      .innerJoin("apl.tag as t", "t.rakuten_tag_id", "it.rakuten_tag_id")
      .select(["it.item_id", "t.tag_name"])
      .where("it.item_id", "in", itemIds)
      .orderBy("it.item_id")
      .orderBy("it.rakuten_tag_id")
      .execute();
    for (const r of rows) {
      if (!r.tag_name) continue;
      const id = Number(r.item_id);
      out.set(id, [...(out.get(id) ?? []), r.tag_name]);
    }
    return out;
  }

  /** Current source hashes of the given items. */
  async sourceHashes(itemCodes: readonly string[]): Promise<Map<string, string>> {
    if (itemCodes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom("apl.item_embedding_source")
      .select(["item_code", "source_hash"])
      .where("item_code", "in", itemCodes)
      .execute();
    return new Map(rows.map((r) => [r.item_code, r.source_hash]));
  }

  /** Inserts or replaces source rows (inside the run's fenced commit). */
  async upsertSources(
    rows: ReadonlyArray<{ itemCode: string; text: string; hash: string }>,
    now: string,
  ): Promise<number> {
    if (rows.length === 0) return 0;
    await this.db
      .insertInto("apl.item_embedding_source")
      .values(
        rows.map((r) => ({
          item_code: r.itemCode,
          source_text: r.text,
          source_hash: r.hash,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc.column("item_code").doUpdateSet((eb) => ({
          source_text: eb.ref("excluded.source_text"),
          source_hash: eb.ref("excluded.source_hash"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
    return rows.length;
  }

  /**
   * The embedding diff, one page in item-code order after `afterCode`: sources with no embedding,
   * whose source hash changed, embedded by another model (or, when `dimensions` is given,
   * another vector length) or under another apply version.
   */
  async diffPage(
    afterCode: string,
    limit: number,
    want: { model: string; dimensions: number | undefined; applyVersion: number },
  ): Promise<EmbedTarget[]> {
    const { model, dimensions, applyVersion } = want;
    const rows = await this.db
      .selectFrom("apl.item_embedding_source as s")
      .leftJoin("apl.item_embedding as e", "e.item_code", "s.item_code")
      .select(["s.item_code", "s.source_text", "s.source_hash", "e.item_code as embedded"])
      .select(["e.source_hash as embedded_hash", "e.model as embedded_model"])
      .select(["e.dimensions as embedded_dimensions"])
      .where("s.item_code", ">", afterCode)
      .where((eb) =>
        eb.or([
          eb("e.item_code", "is", null),
          eb("e.source_hash", "<>", eb.ref("s.source_hash")),
          eb("e.model", "<>", model),
          ...(dimensions === undefined ? [] : [eb("e.dimensions", "<>", dimensions)]),
          eb("e.applied_version", "<>", applyVersion),
        ]),
      )
      .orderBy("s.item_code")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      itemCode: r.item_code,
      sourceText: r.source_text,
      sourceHash: r.source_hash,
      reason: reasonOf(r, model, dimensions),
    }));
  }

  /** Inserts or replaces embeddings (inside the run's fenced commit); created_at is kept. */
  async upsertEmbeddings(rows: readonly EmbeddingWrite[], now: string): Promise<number> {
    if (rows.length === 0) return 0;
    await this.db
      .insertInto("apl.item_embedding")
      .values(
        rows.map((r) => ({
          item_code: r.itemCode,
          model: r.model,
          source_hash: r.sourceHash,
          dimensions: r.vector.length,
          vector: JSON.stringify(r.vector),
          applied_version: r.appliedVersion,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc.column("item_code").doUpdateSet((eb) => ({
          model: eb.ref("excluded.model"),
          source_hash: eb.ref("excluded.source_hash"),
          dimensions: eb.ref("excluded.dimensions"),
          vector: eb.ref("excluded.vector"),
          applied_version: eb.ref("excluded.applied_version"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
    return rows.length;
  }
}

/** The first reason, in diff order, a source row is in the embedding diff. */
function reasonOf(
  r: {
    embedded: string | null;
    source_hash: string;
    embedded_hash: string | null;
    embedded_model: string | null;
    embedded_dimensions: number | null;
  },
  model: string,
  dimensions: number | undefined,
): EmbedReason {
  if (r.embedded === null) return "missing";
  if (r.embedded_hash !== r.source_hash) return "source_changed";
  const otherDimensions = dimensions !== undefined && Number(r.embedded_dimensions) !== dimensions;
  if (r.embedded_model !== model || otherDimensions) return "model_changed";
  return "version_changed";
}
