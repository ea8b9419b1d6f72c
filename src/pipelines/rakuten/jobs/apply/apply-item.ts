import type { Transaction } from "kysely";
import type { ApplyInput } from "tidemark/kit";
import { ItemBatchRepo } from "../../repos/item-batch-repo.ts";
import { ItemRepo } from "../../repos/item-repo.ts";
import { ItemTagRepo } from "../../repos/item-tag-repo.ts";
import { shopCodeOf } from "../../repos/item-values.ts";
import type { NormalizedItem } from "../../stages/normalize/types.ts";
import type { RakutenTables } from "../../tables.ts";
import type { ApplyMeta } from "./apply-meta.ts";

/** Bump when what the item applier writes changes (not for a log line). */
export const ITEM_APPLY_VERSION = 1;

/** Item applier: shop and item upserted, images and tags synced, market and review snapshots. */
export async function applyItem(
  input: ApplyInput<NormalizedItem, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  const now = meta.now();
  const doc = input.document;
  const items = new ItemRepo(input.tx, now);
  // Many items share a shop: written once per run unless its name, URL or flag changes.
  const shopKey = shopKeyOf(doc);
  const shop = shopCodeOf(doc);
  const shopDone = meta.shopsWritten.get(shop) === shopKey;
  try {
    if (!shopDone) {
      await items.upsertShop(doc);
      meta.shopsWritten.set(shop, shopKey);
    }
    const { id, inserted } = await items.upsertItem(doc, input.contentHash);
    await items.syncItemImages(id, doc, inserted);
    await new ItemTagRepo(input.tx, now).syncItemTags(id, doc.tagIds, inserted);
    const snap = { runId: meta.runId, contentHash: input.contentHash, isNew: inserted };
    await items.insertMarketSnapshot(id, doc, snap);
    await items.insertReviewSnapshot(id, doc, snap);
  } catch (err) {
    // This item's writes are rolled back (its savepoint), the shop's included.
    if (!shopDone) meta.shopsWritten.delete(shop);
    throw err;
  }
}

/** What a shop row holds of an item's document, to write each shop once per run. */
function shopKeyOf(doc: NormalizedItem): string {
  return JSON.stringify([doc.shopName, doc.shopUrl, doc.shopOfTheYearFlag]);
}

/**
 * The item applier for a whole batch: the same rows as `applyItem` item by item, written with
 * a few multi-row statements. A throw rolls the batch back and the engine applies each item
 * alone with `applyItem`.
 */
export async function applyItems(
  tx: Transaction<RakutenTables>,
  inputs: ReadonlyArray<Omit<ApplyInput<NormalizedItem, RakutenTables>, "tx">>,
  meta: ApplyMeta,
): Promise<void> {
  const repo = new ItemBatchRepo(tx, meta.now());
  // The last document of each shop wins, as it would item by item.
  const lastOfShop = new Map<string, NormalizedItem>();
  for (const { document } of inputs) lastOfShop.set(shopCodeOf(document), document);
  const shops = [...lastOfShop].filter(
    ([code, doc]) => meta.shopsWritten.get(code) !== shopKeyOf(doc),
  );
  await repo.upsertShops(shops.map(([, doc]) => doc));
  const items = await repo.upsertItems(
    inputs.map((i) => ({ doc: i.document, contentHash: i.contentHash })),
  );
  await repo.syncImages(items);
  await repo.syncTags(items);
  await repo.insertSnapshots(items, meta.runId);
  // Recorded only once every write of the batch went through.
  for (const [code, doc] of shops) meta.shopsWritten.set(code, shopKeyOf(doc));
}
