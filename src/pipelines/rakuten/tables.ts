import type { Generated } from "kysely";
import type { LedgerTable } from "tidemark/kit";

/**
 * Tables of the Rakuten pipeline, in the `apl` schema (`apl_*` tables on SQLite). Timestamps
 * are ISO-8601 UTC text; flags are 0/1 integers; ids are numbers on both dialects.
 */
export interface RakutenTables {
  "apl.staging": LedgerTable;
  "apl.item": ItemRow;
  "apl.item_image": ItemImageRow;
  "apl.market_snapshot": MarketSnapshotRow;
  "apl.review_snapshot": ReviewSnapshotRow;
  "apl.shop": ShopRow;
  "apl.item_tag": ItemTagRow;
  "apl.rank_snapshot": RankSnapshotRow;
  "apl.genre": GenreRow;
  "apl.tag_group": TagGroupRow;
  "apl.tag": TagRow;
  "apl.item_embedding_source": ItemEmbeddingSourceRow;
  "apl.item_embedding": ItemEmbeddingRow;
}

/** One Rakuten Ichiba item as a gift-recommendation service needs it (latest state). */
export interface ItemRow {
  id: Generated<number>;
  /** `shop:1234`, unique. */
  rakuten_item_code: string;
  item_name: string | null;
  catchcopy: string | null;
  item_caption: string | null;
  item_url: string | null;
  affiliate_url: string | null;
  item_price: number | null;
  tax_flag: number | null;
  postage_flag: number | null;
  gift_flag: number | null;
  availability: number | null;
  image_flag: number | null;
  review_count: number | null;
  review_average: number | null;
  point_rate: number | null;
  start_time: string | null;
  end_time: string | null;
  rakuten_shop_code: string;
  rakuten_genre_id: number | null;
  /** 1 when its genre and its shop are known (the is-active job decides), else 0. */
  is_active: Generated<number>;
  /** Content hash of the normalized document last applied. */
  content_hash: string;
  /** Digest of every value the item applier wrote for the item (null: written before 0002). */
  applied_sig: string | null;
  created_at: string;
  updated_at: string;
}

/** An item's image URL: `size` is `small` (64x64) or `medium` (128x128), in the stored order. */
export interface ItemImageRow {
  item_id: number;
  size: "small" | "medium";
  position: number;
  url: string;
  created_at: string;
}

/** Price and availability of an item when its content changed (one row per change). */
export interface MarketSnapshotRow {
  id: Generated<number>;
  item_id: number;
  collected_at: string;
  run_id: string | null;
  content_hash: string;
  item_price: number | null;
  availability: number | null;
  tax_flag: number | null;
  postage_flag: number | null;
  credit_card_flag: number | null;
  point_rate: number | null;
  point_rate_start_time: string | null;
  point_rate_end_time: string | null;
  affiliate_rate: number | null;
}

/** Review count and average of an item when its content changed. */
export interface ReviewSnapshotRow {
  id: Generated<number>;
  item_id: number;
  collected_at: string;
  run_id: string | null;
  content_hash: string;
  review_count: number | null;
  review_average: number | null;
}

/** A Rakuten shop. */
export interface ShopRow {
  id: Generated<number>;
  rakuten_shop_code: string;
  shop_name: string | null;
  shop_url: string | null;
  shop_of_the_year_flag: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** An item's Rakuten tag (the item's tag set, synced on every apply). */
export interface ItemTagRow {
  item_id: number;
  rakuten_tag_id: number;
  created_at: string;
}

/** One position of a genre's ranking as it was when the ranking changed. */
export interface RankSnapshotRow {
  id: Generated<number>;
  run_id: string;
  rakuten_genre_id: number;
  rank: number;
  rakuten_item_code: string;
  item_name: string | null;
  item_price: number | null;
  rakuten_shop_code: string | null;
  review_count: number | null;
  review_average: number | null;
  content_hash: string;
  collected_at: string;
}

/** A Rakuten genre. */
export interface GenreRow {
  rakuten_genre_id: number;
  genre_name: string | null;
  genre_level: number | null;
  parent_genre_id: number | null;
  content_hash: string;
  created_at: string;
  updated_at: string;
}

/** A Rakuten tag group. */
export interface TagGroupRow {
  rakuten_tag_group_id: number;
  tag_group_name: string | null;
  created_at: string;
  updated_at: string;
}

/** A Rakuten tag. */
export interface TagRow {
  rakuten_tag_id: number;
  tag_name: string | null;
  rakuten_tag_group_id: number | null;
  parent_tag_id: number | null;
  created_at: string;
  updated_at: string;
}

/** The text an item's embedding is computed from, and its hash. */
export interface ItemEmbeddingSourceRow {
  item_code: string;
  source_text: string;
  source_hash: string;
  updated_at: string;
}

/** An item's embedding: `vector` is a JSON array of numbers. */
export interface ItemEmbeddingRow {
  item_code: string;
  model: string;
  source_hash: string;
  dimensions: number;
  vector: string;
  /** The `EMBEDDING_APPLY_VERSION` the vector was stored under (a different one re-embeds). */
  applied_version: Generated<number>;
  created_at: string;
  updated_at: string;
}
