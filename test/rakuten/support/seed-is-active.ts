import type { Kysely } from "kysely";
import type { RakutenTables } from "../../../src/pipelines/rakuten/tables.ts";

/** What `rakuten.is-active` reads of an item: its genre and shop and its current flag. */
export interface IsActiveItem {
  code: string;
  genre: number;
  shop: string;
  active: number;
}

/**
 * Seeds genre 1 and shop `s1` (both known) and the given items, all written at `at`, for the
 * is-active rules: an item is active when its genre and shop are known.
 */
export async function seedIsActive(
  db: Kysely<RakutenTables>,
  at: string,
  items: readonly IsActiveItem[],
): Promise<void> {
  const base = { content_hash: "h", created_at: at, updated_at: at };
  await db
    .insertInto("apl.genre")
    .values({
      rakuten_genre_id: 1,
      genre_name: "g",
      genre_level: 1,
      parent_genre_id: null,
      ...base,
    })
    .execute();
  await db
    .insertInto("apl.shop")
    .values({
      rakuten_shop_code: "s1",
      shop_name: "s",
      shop_url: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto("apl.item")
    .values(
      items.map((i) => ({
        rakuten_item_code: i.code,
        item_name: i.code,
        rakuten_genre_id: i.genre,
        rakuten_shop_code: i.shop,
        is_active: i.active,
        ...base,
      })),
    )
    .execute();
}
