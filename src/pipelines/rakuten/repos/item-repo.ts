import type { Kysely, Transaction } from "kysely";
import type { NormalizedItem } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { insertChangedSnapshots, upsertShops } from "./item-shared-writes.ts";
import {
  itemDiffersFrom,
  itemValues,
  marketValues,
  reviewValues,
  sameImages,
  shopCodeOf,
  wantedImages,
} from "./item-values.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** What a snapshot row records besides its values; `isNew`: the item has no snapshot yet. */
export interface SnapshotMeta {
  runId: string;
  contentHash: string;
  isNew?: boolean;
}

/**
 * Item-side writes of the item job : the item row, its shop, its images and
 * its market and review snapshots. Used inside the run's fenced commit.
 */
export class ItemRepo {
  constructor(
    private readonly db: Db,
    /** ISO-8601 UTC time written as updated_at / collected_at. */
    private readonly now: string,
  ) {}

  /**
   * Inserts or updates the item by its item code; returns its id and whether it is new (a new
   * item has no images, tags or snapshots yet, so their comparisons can be skipped).
   */
  async upsertItem(
    doc: NormalizedItem,
    contentHash: string,
  ): Promise<{ id: number; inserted: boolean }> {
    const values = itemValues(doc, contentHash, this.now);
    const fresh = await this.db
      .insertInto("apl.item")
      .values({ ...values, created_at: this.now })
      .onConflict((oc) => oc.column("rakuten_item_code").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (fresh) return { id: Number(fresh.id), inserted: true };
    // An item holding these values already (a re-apply) is not rewritten, updated_at included.
    const row =
      (await this.db
        .updateTable("apl.item")
        .set(values)
        .where("rakuten_item_code", "=", doc.itemCode)
        .where(itemDiffersFrom(values))
        .returning("id")
        .executeTakeFirst()) ??
      (await this.db
        .selectFrom("apl.item")
        .select("id")
        .where("rakuten_item_code", "=", doc.itemCode)
        .executeTakeFirstOrThrow());
    return { id: Number(row.id), inserted: false };
  }

  /**
   * Inserts or updates the item's shop; a shop whose name, URL and flag are unchanged is not
   * touched (many items share one shop). Returns the shop code.
   */
  async upsertShop(doc: NormalizedItem): Promise<string> {
    await upsertShops(this.db, [doc], this.now);
    return shopCodeOf(doc);
  }

  /**
   * Makes the item's image rows equal to the document's lists (small, then medium, in the
   * stored order); returns the number of rows written or removed (0 when already equal).
   */
  async syncItemImages(itemId: number, doc: NormalizedItem, isNew = false): Promise<number> {
    const want = wantedImages(doc);
    const have = isNew
      ? []
      : await this.db
          .selectFrom("apl.item_image")
          .select(["size", "position", "url"])
          .where("item_id", "=", itemId)
          .orderBy("size", "desc")
          .orderBy("position")
          .execute();
    const same = sameImages(have, want);
    if (same) return 0;
    if (have.length > 0) {
      await this.db.deleteFrom("apl.item_image").where("item_id", "=", itemId).execute();
    }
    if (want.length > 0) {
      await this.db
        .insertInto("apl.item_image")
        .values(want.map((w) => ({ ...w, item_id: itemId, created_at: this.now })))
        .execute();
    }
    return have.length + want.length;
  }

  /**
   * Inserts a market snapshot unless the item's latest one holds the same values (a re-apply
   * or a change elsewhere in the item adds no duplicate). Returns 1 when a row was inserted.
   */
  insertMarketSnapshot(itemId: number, doc: NormalizedItem, meta: SnapshotMeta): Promise<number> {
    return this.#insertSnapshot("apl.market_snapshot", itemId, marketValues(doc), meta);
  }

  /** Inserts a review snapshot unless the latest one holds the same count and average. */
  insertReviewSnapshot(itemId: number, doc: NormalizedItem, meta: SnapshotMeta): Promise<number> {
    return this.#insertSnapshot("apl.review_snapshot", itemId, reviewValues(doc), meta);
  }

  #insertSnapshot(
    table: "apl.market_snapshot" | "apl.review_snapshot",
    itemId: number,
    values: Record<string, string | number | null>,
    meta: SnapshotMeta,
  ): Promise<number> {
    const candidate = {
      itemId,
      isNew: meta.isNew ?? false,
      contentHash: meta.contentHash,
      values,
    };
    return insertChangedSnapshots(this.db, table, [candidate], {
      runId: meta.runId,
      now: this.now,
    });
  }
}
