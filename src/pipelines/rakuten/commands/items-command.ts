import type { CliServices } from "tidemark";
import { listLimit, typed } from "tidemark/kit";
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

/** Stored items, the most recently written first. */
export async function storedItems(services: CliServices, limit: number): Promise<StoredItem[]> {
  const { db } = await services.services();
  const rows = await typed<RakutenTables>(db)
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

/** A name cut to fit a table column. */
function short(text: string | null, max: number): string {
  if (text === null) return "-";
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `tidemark rakuten items [--limit n] [--json]`. */
export async function itemsCommand(
  services: CliServices,
  options: Readonly<Record<string, unknown>>,
): Promise<void> {
  const items = await storedItems(services, listLimit(options.limit, 20));
  if (options.json) {
    services.printJson(items);
    return;
  }
  if (items.length === 0) {
    services.print("No item stored yet: run a rakuten.item or rakuten.ranking job first.");
    return;
  }
  services.printTable(
    ["ITEM CODE", "PRICE", "UPDATED", "NAME"],
    items.map((i) => [i.item_code, i.price, i.updated_at.slice(0, 19), short(i.name, 30)]),
  );
  services.print(`Similar items: tidemark rakuten similar ${items[0]!.item_code}`);
}
