import type { Kysely } from "kysely";
import { columnTypes, createLedgerTable, dialectOf, ensureSchema } from "tidemark/kit";

/**
 * The Rakuten pipeline's thirteen tables in the `apl` schema (`apl_*` on SQLite): the staging
 * ledger, the item side (item, item_image, market_snapshot, review_snapshot, shop, item_tag),
 * rankings, genres, tags and the embedding tables, with the indexes the "updated today"
 * policies rely on: staging (source, entity, saved_at), item (rakuten_item_code),
 * item_tag (item_id, rakuten_tag_id).
 *
 * Flags (is_active, gift_flag, …) are 0/1 integers on both dialects, as everywhere in Tidemark.
 * `item_embedding.vector` is a JSON array of numbers: jsonb on Postgres, text on SQLite; both
 * read back as JSON text.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await ensureSchema(db, "apl");
  await createLedgerTable(db, "apl.staging");
  await createShopAndItem(db, t);
  await createItemSnapshots(db, t);
  await createItemTagAndRanks(db, t);
  await createGenresAndTags(db, t);
  await createEmbeddingTables(db, t);
}

type Types = ReturnType<typeof columnTypes>;

/** Shops and items (the item code unique, the columns a gift recommendation needs), item images. */
async function createShopAndItem(db: Kysely<object>, t: Types): Promise<void> {
  await db.schema
    .createTable("apl.shop")
    .addColumn("id", t.serial, (c) => c.primaryKey())
    .addColumn("rakuten_shop_code", "text", (c) => c.notNull().unique())
    .addColumn("shop_name", "text")
    .addColumn("shop_url", "text")
    .addColumn("shop_of_the_year_flag", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("apl.item")
    .addColumn("id", t.serial, (c) => c.primaryKey())
    .addColumn("rakuten_item_code", "text", (c) => c.notNull())
    .addColumn("item_name", "text")
    .addColumn("catchcopy", "text")
    .addColumn("item_caption", "text")
    .addColumn("item_url", "text")
    .addColumn("affiliate_url", "text")
    .addColumn("item_price", "integer")
    .addColumn("tax_flag", "integer")
    .addColumn("postage_flag", "integer")
    .addColumn("gift_flag", "integer")
    .addColumn("availability", "integer")
    .addColumn("image_flag", "integer")
    .addColumn("review_count", "integer")
    .addColumn("review_average", "real")
    .addColumn("point_rate", "integer")
    .addColumn("start_time", "text")
    .addColumn("end_time", "text")
    .addColumn("rakuten_shop_code", "text", (c) => c.notNull())
    .addColumn("rakuten_genre_id", "integer")
    .addColumn("is_active", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("apl_item_rakuten_item_code_idx")
    .on("apl.item")
    .column("rakuten_item_code")
    .unique()
    .execute();
  await db.schema
    .createIndex("apl_item_rakuten_genre_id_idx")
    .on("apl.item")
    .column("rakuten_genre_id")
    .execute();
  await db.schema
    .createIndex("apl_item_rakuten_shop_code_idx")
    .on("apl.item")
    .column("rakuten_shop_code")
    .execute();
  await db.schema
    .createTable("apl.item_image")
    .addColumn("item_id", "bigint", (c) =>
      c.notNull().references("apl.item.id").onDelete("cascade"),
    )
    .addColumn("size", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("apl_item_image_pkey", ["item_id", "size", "position"])
    .execute();
}

/** Market (price, availability, points) and review snapshots of items. */
async function createItemSnapshots(db: Kysely<object>, t: Types): Promise<void> {
  for (const table of ["apl.market_snapshot", "apl.review_snapshot"] as const) {
    let b = db.schema
      .createTable(table)
      .addColumn("id", t.serial, (c) => c.primaryKey())
      .addColumn("item_id", "bigint", (c) =>
        c.notNull().references("apl.item.id").onDelete("cascade"),
      )
      .addColumn("collected_at", t.timestamp, (c) => c.notNull())
      .addColumn("run_id", "text")
      .addColumn("content_hash", "text", (c) => c.notNull());
    b =
      table === "apl.market_snapshot"
        ? b
            .addColumn("item_price", "integer")
            .addColumn("availability", "integer")
            .addColumn("tax_flag", "integer")
            .addColumn("postage_flag", "integer")
            .addColumn("credit_card_flag", "integer")
            .addColumn("point_rate", "integer")
            .addColumn("point_rate_start_time", "text")
            .addColumn("point_rate_end_time", "text")
            .addColumn("affiliate_rate", "real")
        : b.addColumn("review_count", "integer").addColumn("review_average", "real");
    await b.execute();
    const flat = table.replace(".", "_");
    await db.schema
      .createIndex(`${flat}_item_collected_idx`)
      .on(table)
      .columns(["item_id", "collected_at"])
      .execute();
  }
}

/** An item's tags, and rank snapshots of genres' rankings. */
async function createItemTagAndRanks(db: Kysely<object>, t: Types): Promise<void> {
  await db.schema
    .createTable("apl.item_tag")
    .addColumn("item_id", "bigint", (c) =>
      c.notNull().references("apl.item.id").onDelete("cascade"),
    )
    .addColumn("rakuten_tag_id", "integer", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("apl_item_tag_pkey", ["item_id", "rakuten_tag_id"])
    .execute();
  await db.schema
    .createIndex("apl_item_tag_rakuten_tag_id_idx")
    .on("apl.item_tag")
    .column("rakuten_tag_id")
    .execute();

  await db.schema
    .createTable("apl.rank_snapshot")
    .addColumn("id", t.serial, (c) => c.primaryKey())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("rakuten_genre_id", "integer", (c) => c.notNull())
    .addColumn("rank", "integer", (c) => c.notNull())
    .addColumn("rakuten_item_code", "text", (c) => c.notNull())
    .addColumn("item_name", "text")
    .addColumn("item_price", "integer")
    .addColumn("rakuten_shop_code", "text")
    .addColumn("review_count", "integer")
    .addColumn("review_average", "real")
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("collected_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("apl_rank_snapshot_genre_collected_idx")
    .on("apl.rank_snapshot")
    .columns(["rakuten_genre_id", "collected_at"])
    .execute();
}

/** Genres, tag groups and tags. */
async function createGenresAndTags(db: Kysely<object>, t: Types): Promise<void> {
  await db.schema
    .createTable("apl.genre")
    .addColumn("rakuten_genre_id", "integer", (c) => c.primaryKey())
    .addColumn("genre_name", "text")
    .addColumn("genre_level", "integer")
    .addColumn("parent_genre_id", "integer")
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("apl.tag_group")
    .addColumn("rakuten_tag_group_id", "integer", (c) => c.primaryKey())
    .addColumn("tag_group_name", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("apl.tag")
    .addColumn("rakuten_tag_id", "integer", (c) => c.primaryKey())
    .addColumn("tag_name", "text")
    .addColumn("rakuten_tag_group_id", "integer")
    .addColumn("parent_tag_id", "integer")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("apl_tag_group_idx")
    .on("apl.tag")
    .column("rakuten_tag_group_id")
    .execute();
}

/** Embedding source texts and embeddings. */
async function createEmbeddingTables(db: Kysely<object>, t: Types): Promise<void> {
  await db.schema
    .createTable("apl.item_embedding_source")
    .addColumn("item_code", "text", (c) => c.primaryKey())
    .addColumn("source_text", "text", (c) => c.notNull())
    .addColumn("source_hash", "text", (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("apl.item_embedding")
    .addColumn("item_code", "text", (c) => c.primaryKey())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("source_hash", "text", (c) => c.notNull())
    .addColumn("dimensions", "integer", (c) => c.notNull())
    // JSON array of numbers (jsonb on Postgres, text on SQLite); read back as JSON text.
    .addColumn("vector", t.json, (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
}

/** Drops every Rakuten table, children first. */
export async function down(db: Kysely<object>): Promise<void> {
  for (const table of [
    "apl.item_embedding",
    "apl.item_embedding_source",
    "apl.tag",
    "apl.tag_group",
    "apl.genre",
    "apl.rank_snapshot",
    "apl.item_tag",
    "apl.review_snapshot",
    "apl.market_snapshot",
    "apl.item_image",
    "apl.item",
    "apl.shop",
    "apl.staging",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
