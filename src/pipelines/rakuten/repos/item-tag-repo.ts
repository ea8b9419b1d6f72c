import type { Kysely, Transaction } from "kysely";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** The item job's own table: an item's tag set. */
export class ItemTagRepo {
  constructor(
    private readonly db: Db,
    private readonly now: string,
  ) {}

  /**
   * Makes the item's tags exactly `tagIds`: removes the others, adds the missing ones (rows
   * already there are left as they are). Returns the number of rows added or removed.
   */
  async syncItemTags(itemId: number, tagIds: readonly number[], isNew = false): Promise<number> {
    const want = new Set(tagIds);
    if (isNew && want.size === 0) return 0;
    const have = new Set(
      isNew
        ? []
        : (
            await this.db
              .selectFrom("apl.item_tag")
              .select("rakuten_tag_id")
              .where("item_id", "=", itemId)
              .execute()
          ).map((r) => Number(r.rakuten_tag_id)),
    );
    const remove = [...have].filter((id) => !want.has(id));
    const add = [...want].filter((id) => !have.has(id));
    if (remove.length > 0) {
      await this.db
        .deleteFrom("apl.item_tag")
        .where("item_id", "=", itemId)
        .where("rakuten_tag_id", "in", remove)
        .execute();
    }
    if (add.length > 0) {
      await this.db
        .insertInto("apl.item_tag")
        .values(add.map((id) => ({ item_id: itemId, rakuten_tag_id: id, created_at: this.now })))
        .onConflict((oc) => oc.columns(["item_id", "rakuten_tag_id"]).doNothing())
        .execute();
    }
    return remove.length + add.length;
  }
}
