import type { CliServices } from "tidemark";
import { listLimit, typed } from "tidemark/kit";
import { StoredItemRepo } from "../repos/stored-item-repo.ts";
import type { RakutenTables } from "../tables.ts";

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
  const { db } = await services.services();
  const items = await new StoredItemRepo(typed<RakutenTables>(db)).newest(
    listLimit(options.limit, 20),
  );
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
