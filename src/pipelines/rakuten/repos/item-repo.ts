import { type Expression, type Kysely, type SqlBool, sql, type Transaction } from "kysely";
import type { NormalizedItem } from "../normalize/types.ts";
import type { MarketSnapshotRow, RakutenTables, ReviewSnapshotRow } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** What a snapshot row records besides its values; `isNew`: the item has no snapshot yet. */
export interface SnapshotMeta {
  runId: string;
  contentHash: string;
  isNew?: boolean;
}

/** The shop code of an item: its `shopCode`, else the part of `itemCode` before the colon. */
export function shopCodeOf(doc: NormalizedItem): string {
  return doc.shopCode ?? doc.itemCode.split(":")[0] ?? doc.itemCode;
}

/**
 * Item-side writes of the item job (seed's ItemRepo): the item row, its shop, its images and
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
    const code = shopCodeOf(doc);
    const values = {
      shop_name: doc.shopName,
      shop_url: doc.shopUrl,
      shop_of_the_year_flag: doc.shopOfTheYearFlag ?? 0,
    };
    await this.db
      .insertInto("apl.shop")
      .values({ rakuten_shop_code: code, ...values, created_at: this.now, updated_at: this.now })
      .onConflict((oc) =>
        oc
          .column("rakuten_shop_code")
          .doUpdateSet({ ...values, updated_at: this.now })
          .where((eb) =>
            eb.or([
              eb("apl.shop.shop_name", "is distinct from", eb.ref("excluded.shop_name")),
              eb("apl.shop.shop_url", "is distinct from", eb.ref("excluded.shop_url")),
              eb(
                "apl.shop.shop_of_the_year_flag",
                "is distinct from",
                eb.ref("excluded.shop_of_the_year_flag"),
              ),
            ]),
          ),
      )
      .execute();
    return code;
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
  async insertMarketSnapshot(
    itemId: number,
    doc: NormalizedItem,
    meta: SnapshotMeta,
  ): Promise<number> {
    const values = marketValues(doc);
    const last = meta.isNew
      ? undefined
      : await this.db
          .selectFrom("apl.market_snapshot")
          .selectAll()
          .where("item_id", "=", itemId)
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst();
    if (last && sameValues(last, values)) return 0;
    await this.db
      .insertInto("apl.market_snapshot")
      .values({
        item_id: itemId,
        collected_at: this.now,
        run_id: meta.runId,
        content_hash: meta.contentHash,
        ...values,
      })
      .execute();
    return 1;
  }

  /** Inserts a review snapshot unless the latest one holds the same count and average. */
  async insertReviewSnapshot(
    itemId: number,
    doc: NormalizedItem,
    meta: SnapshotMeta,
  ): Promise<number> {
    const values = reviewValues(doc);
    const last = meta.isNew
      ? undefined
      : await this.db
          .selectFrom("apl.review_snapshot")
          .selectAll()
          .where("item_id", "=", itemId)
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst();
    if (last && sameValues(last, values)) return 0;
    await this.db
      .insertInto("apl.review_snapshot")
      .values({
        item_id: itemId,
        collected_at: this.now,
        run_id: meta.runId,
        content_hash: meta.contentHash,
        ...values,
      })
      .execute();
    return 1;
  }
}

/** The item row's columns from its document (all but id, is_active and created_at). */
export function itemValues(doc: NormalizedItem, contentHash: string, now: string) {
  return {
    rakuten_item_code: doc.itemCode,
    item_name: doc.itemName,
    catchcopy: doc.catchcopy,
    item_caption: doc.itemCaption,
    item_url: doc.itemUrl,
    affiliate_url: doc.affiliateUrl,
    item_price: doc.itemPrice,
    tax_flag: doc.taxFlag,
    postage_flag: doc.postageFlag,
    gift_flag: doc.giftFlag,
    availability: doc.availability,
    image_flag: doc.imageFlag,
    review_count: doc.reviewCount,
    review_average: doc.reviewAverage,
    point_rate: doc.pointRate,
    start_time: doc.startTime,
    end_time: doc.endTime,
    rakuten_shop_code: shopCodeOf(doc),
    rakuten_genre_id: doc.genreId,
    content_hash: contentHash,
    updated_at: now,
  };
}

/** The item columns an upsert of an existing item overwrites (all but its code and created_at). */
export const ITEM_UPDATED = [
  "item_name",
  "catchcopy",
  "item_caption",
  "item_url",
  "affiliate_url",
  "item_price",
  "tax_flag",
  "postage_flag",
  "gift_flag",
  "availability",
  "image_flag",
  "review_count",
  "review_average",
  "point_rate",
  "start_time",
  "end_time",
  "rakuten_shop_code",
  "rakuten_genre_id",
  "content_hash",
  "updated_at",
] as const;

/** The item columns whose values decide whether an existing item is rewritten (not updated_at). */
export const ITEM_COMPARED = ITEM_UPDATED.filter(
  (c): c is Exclude<(typeof ITEM_UPDATED)[number], "updated_at"> => c !== "updated_at",
);

/** True (SQL) when the item row holds other values than `values` in a compared column. */
export function itemDiffersFrom(values: ReturnType<typeof itemValues>): Expression<SqlBool> {
  return anyColumnDiffers((c) => values[c]);
}

/** True (SQL), in an upsert's conflict branch, when the row differs from the proposed one. */
export function itemDiffersFromExcluded(): Expression<SqlBool> {
  return anyColumnDiffers((c) => sql.ref(`excluded.${c}`));
}

function anyColumnDiffers(
  other: (column: (typeof ITEM_COMPARED)[number]) => unknown,
): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    ITEM_COMPARED.map((c) => sql`${sql.ref(`apl.item.${c}`)} is distinct from ${other(c)}`),
    sql` or `,
  )})`;
}

/** The image rows an item should have: small, then medium, in the stored order. */
export function wantedImages(
  doc: NormalizedItem,
): Array<{ size: "small" | "medium"; position: number; url: string }> {
  return [
    ...doc.smallImageUrls.map((url, position) => ({ size: "small" as const, position, url })),
    ...doc.mediumImageUrls.map((url, position) => ({ size: "medium" as const, position, url })),
  ];
}

/** The values a market snapshot records. */
export function marketValues(doc: NormalizedItem) {
  return {
    item_price: doc.itemPrice,
    availability: doc.availability,
    tax_flag: doc.taxFlag,
    postage_flag: doc.postageFlag,
    credit_card_flag: doc.creditCardFlag,
    point_rate: doc.pointRate,
    point_rate_start_time: doc.pointRateStartTime,
    point_rate_end_time: doc.pointRateEndTime,
    affiliate_rate: doc.affiliateRate,
  } satisfies Partial<MarketSnapshotRow>;
}

/** The values a review snapshot records. */
export function reviewValues(doc: NormalizedItem) {
  return {
    review_count: doc.reviewCount,
    review_average: doc.reviewAverage,
  } satisfies Partial<ReviewSnapshotRow>;
}

/** True when an item's stored images are exactly `want`, in order. */
export function sameImages(
  have: ReadonlyArray<{ size: string; position: number; url: string }>,
  want: ReadonlyArray<{ size: string; position: number; url: string }>,
): boolean {
  return (
    have.length === want.length &&
    have.every((h, i) => {
      const w = want[i];
      return (
        w !== undefined && h.size === w.size && Number(h.position) === w.position && h.url === w.url
      );
    })
  );
}

/** True when every key of `values` equals the row's (numbers compared as numbers). */
export function sameValues(row: object, values: Record<string, string | number | null>): boolean {
  const r = row as Record<string, unknown>;
  return Object.entries(values).every(([k, v]) => sameValue(r[k], v));
}

/** True when a stored value equals a written one (numbers compared as numbers, null as null). */
export function sameValue(stored: unknown, value: string | number | null): boolean {
  const have = stored ?? null;
  if (value === null || have === null) return value === have;
  return typeof value === "number" ? Number(have) === value : have === value;
}
