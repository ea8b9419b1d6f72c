import type { Generated } from "kysely";

/**
 * Tables of the mercari pipeline, named and shaped as docs/pipelines/mercari.md lists them (no schema,
 * so `SELECT * FROM mercari_crawl_results` works as written there). Timestamps are ISO-8601 UTC
 * text.
 */
export interface MercariTables {
  products: ProductRow;
  mercari_crawl_settings: CrawlSettingRow;
  mercari_crawl_results: CrawlResultRow;
}

/** A product whose market price is tracked. */
export interface ProductRow {
  id: Generated<number>;
  name: string;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

/** How a product is searched on Mercari (one setting per product). */
export interface CrawlSettingRow {
  id: Generated<number>;
  product_id: number;
  keyword: string;
  category_id: number | null;
  min_price: number | null;
  max_price: number | null;
  /** Words Mercari's search leaves out (`excludeKeyword`); null for none. */
  exclude_keyword: string | null;
  /** 1 enabled, 0 disabled. */
  enabled: Generated<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

/** `selling_status`: 1 on sale, 2 sold (trading counts as sold). */
export const SELLING_STATUS = { onSale: 1, sold: 2 } as const;
/** `seller_type`: 1 a regular user, 2 a Mercari Shops shop. */
export const SELLER_TYPE = { user: 1, shop: 2 } as const;

/** One Mercari listing found for a product. */
export interface CrawlResultRow {
  id: Generated<number>;
  product_id: number;
  /** Mercari's item id (`m…`) or Shops product id. */
  external_id: string;
  name: string;
  price: number;
  selling_url: string;
  image_url: string;
  selling_status: number;
  seller_type: number;
  /** The user's or shop's id; null until known (a Shops hit's shop is named by its detail page). */
  seller_id: string | null;
  /** Fingerprint of the setting the search that found the row ran with (see list/match.ts). */
  setting_fingerprint: string | null;
  /**
   * While a Shops time sale runs, its end (ISO-8601): `price` holds the sale price a detail check
   * found, which a search hit's list price does not replace until then. Null otherwise.
   */
  time_sale_until: string | null;
  /** Approximated from the item's `updated` time by a detail crawl; null until then. */
  sold_out_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}
