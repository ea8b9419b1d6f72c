// Test data of the embedding suites: a genre, tags and three items (two towels, one coffee).
import type { Kysely } from "kysely";
import type { RakutenTables } from "../../../src/pipelines/rakuten/tables.ts";

const NOW = "2026-05-20T03:00:00.000Z";

/** Items, a genre and tags, written as the item, genre and tag jobs would. */
export async function seedCatalogue(db: Kysely<RakutenTables>): Promise<void> {
  await db
    .insertInto("apl.genre")
    .values({
      rakuten_genre_id: 100,
      genre_name: "タオル",
      genre_level: 2,
      parent_genre_id: 1,
      content_hash: "g",
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
  const item = (code: string, name: string, genre: number | null) => ({
    rakuten_item_code: code,
    item_name: name,
    catchcopy: "贈り物に",
    item_caption: `${name}の説明。`.repeat(100),
    rakuten_shop_code: code.split(":")[0]!,
    rakuten_genre_id: genre,
    content_hash: code,
    created_at: NOW,
    updated_at: NOW,
  });
  await db
    .insertInto("apl.item")
    .values([
      item("shop-a:1", "今治タオル ハンドタオル 3枚セット", 100),
      item("shop-a:2", "今治タオル フェイスタオル 2枚セット", 100),
      item("shop-b:1", "ドリップコーヒー 詰め合わせ", null),
    ])
    .execute();
  const first = await db
    .selectFrom("apl.item")
    .select("id")
    .where("rakuten_item_code", "=", "shop-a:1")
    .executeTakeFirstOrThrow();
  await db
    .insertInto("apl.tag")
    .values([
      { rakuten_tag_id: 2, tag_name: "日本製", created_at: NOW, updated_at: NOW },
      { rakuten_tag_id: 1, tag_name: "綿100%", created_at: NOW, updated_at: NOW },
    ])
    .execute();
  await db
    .insertInto("apl.item_tag")
    .values([
      { item_id: first.id, rakuten_tag_id: 2, created_at: NOW },
      { item_id: first.id, rakuten_tag_id: 1, created_at: NOW },
      { item_id: first.id, rakuten_tag_id: 99, created_at: NOW },
    ])
    .execute();
}
