import type { Kysely } from "kysely";
import type { RakutenTables } from "../tables.ts";

/** One stored item as `rakuten items` lists it. */
export interface StoredItem {
  item_code: string;
  name: string | null;
  price: number | null;
  shop_code: string;
  genre_id: number | null;
  active: boolean;
  updated_at: string;
}

/** An item's name and price, as `rakuten similar` and the demo show them. */
export interface ItemLabel {
  rakuten_item_code: string;
  item_name: string | null;
  item_price: number | null;
}

/** Reads of `apl.item` for the commands, the demo and the embedding jobs (no writes). */
export class StoredItemRepo {
  constructor(private readonly db: Kysely<RakutenTables>) {}

  /** Stored items, the most recently written first. */
  async newest(limit: number): Promise<StoredItem[]> {
    const rows = await this.db
      .selectFrom("apl.item")
      .select([
        "rakuten_item_code",
        "item_name",
        "item_price",
        "rakuten_shop_code",
        "rakuten_genre_id",
        "is_active",
        "updated_at",
      ])
      .orderBy("updated_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      item_code: r.rakuten_item_code,
      name: r.item_name,
      price: r.item_price,
      shop_code: r.rakuten_shop_code,
      genre_id: r.rakuten_genre_id,
      active: r.is_active === 1,
      updated_at: r.updated_at,
    }));
  }

  /** The first `limit` items by item code, with their names and prices. */
  firstByCode(limit: number): Promise<ItemLabel[]> {
    return this.db
      .selectFrom("apl.item")
      .select(["rakuten_item_code", "item_name", "item_price"])
      .orderBy("rakuten_item_code")
      .limit(limit)
      .execute();
  }

  /** The item's row, or undefined when no item has this code. */
  label(itemCode: string): Promise<ItemLabel | undefined> {
    return this.db
      .selectFrom("apl.item")
      .select(["rakuten_item_code", "item_name", "item_price"])
      .where("rakuten_item_code", "=", itemCode)
      .executeTakeFirst();
  }

  /** Names and prices of the items, by item code (unknown codes are left out). */
  async labels(codes: readonly string[]): Promise<Map<string, ItemLabel>> {
    if (codes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom("apl.item")
      .select(["rakuten_item_code", "item_name", "item_price"])
      .where("rakuten_item_code", "in", [...codes])
      .execute();
    return new Map(rows.map((r) => [r.rakuten_item_code, r]));
  }

  /** How many items are stored. */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom("apl.item")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
