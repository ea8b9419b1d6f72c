import { hash } from "node:crypto";
import { type Expression, type SqlBool, sql } from "kysely";
import type { NormalizedItem } from "../stages/normalize/types.ts";
import type { MarketSnapshotRow, ReviewSnapshotRow } from "../tables.ts";

/** The shop code of an item: its `shopCode`, else the part of `itemCode` before the colon. */
export function shopCodeOf(doc: NormalizedItem): string {
  return doc.shopCode ?? doc.itemCode.split(":")[0] ?? doc.itemCode;
}

/**
 * The item row's columns from its document (all but id, is_active and created_at), with
 * `applied_sig`: the digest of everything the item applier writes for it (appliedSignature).
 */
export function itemValues(doc: NormalizedItem, contentHash: string, now: string) {
  const values = {
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
    applied_sig: "",
    updated_at: now,
  };
  values.applied_sig = appliedSignature(doc, values);
  return values;
}

/**
 * A digest of every value the item applier writes for an item: its row's compared columns, its
 * images, its tags and its latest market and review values. An item whose stored digest equals
 * its document's holds all of them already, so a re-apply compares one column, not five tables.
 */
export function appliedSignature(
  doc: NormalizedItem,
  row: Record<(typeof ITEM_COMPARED)[number], string | number | null>,
): string {
  const parts: unknown[] = [];
  for (const c of ITEM_COMPARED) if (c !== "applied_sig") parts.push(row[c]);
  parts.push(imageSignature(wantedImages(doc)), doc.tagIds);
  parts.push(Object.values(marketValues(doc)), Object.values(reviewValues(doc)));
  // One-shot hashing: no Hash object per item.
  return hash("sha256", JSON.stringify(parts), "hex");
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
  "applied_sig",
  "updated_at",
] as const;

/** The item columns whose values decide whether an existing item is rewritten (not updated_at). */
export const ITEM_COMPARED = ITEM_UPDATED.filter(
  (c): c is Exclude<(typeof ITEM_UPDATED)[number], "updated_at"> => c !== "updated_at",
);

/** True (SQL) when the item row holds other values than `values` in a compared column. */
export function itemDiffersFrom(values: ReturnType<typeof itemValues>): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    ITEM_COMPARED.map((c) => sql`${sql.ref(`apl.item.${c}`)} is distinct from ${values[c]}`),
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
function sameValue(stored: unknown, value: string | number | null): boolean {
  const have = stored ?? null;
  if (value === null || have === null) return value === have;
  return typeof value === "number" ? Number(have) === value : have === value;
}

// Between the images of a signature: a control character no image URL holds.
export const IMAGE_SEP = "\u001f";

/** An item's images as one string (the form ItemBatchRepo's query builds from stored rows). */
export function imageSignature(
  images: ReadonlyArray<{ size: string; position: number; url: string }>,
): string {
  return images.map((w) => `${w.size}:${w.position}:${w.url}`).join(IMAGE_SEP);
}
