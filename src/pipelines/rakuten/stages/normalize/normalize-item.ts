import type { RakutenItemPayload } from "../../client/schemas.ts";
import { num, requiredText, sortedIds, sortedUrls, text } from "./rules.ts";
import type { NormalizedItem } from "./types.ts";

/**
 * Text columns of an item where an empty string becomes null: itemName, catchcopy,
 * itemCaption, itemUrl, affiliateUrl, startTime, endTime, pointRateStartTime,
 * pointRateEndTime, shopName, shopCode, shopUrl.
 */
export const ITEM_NULLABLE_TEXT = [
  "itemName",
  "catchcopy",
  "itemCaption",
  "itemUrl",
  "affiliateUrl",
  "startTime",
  "endTime",
  "pointRateStartTime",
  "pointRateEndTime",
  "shopName",
  "shopCode",
  "shopUrl",
] as const;

/**
 * An Item Search item → its normalized document: meta keys and unknown fields dropped, text
 * trimmed (empty → null), `smallImageUrls`, `mediumImageUrls` and `tagIds` sorted, keys sorted.
 */
export function normalizeItem(raw: RakutenItemPayload): NormalizedItem {
  // Written in sorted key order (a test checks it), so no sortKeys pass per item.
  return {
    affiliateRate: num(raw.affiliateRate),
    affiliateUrl: text(raw.affiliateUrl),
    availability: num(raw.availability),
    catchcopy: text(raw.catchcopy),
    creditCardFlag: num(raw.creditCardFlag),
    endTime: text(raw.endTime),
    genreId: num(raw.genreId),
    giftFlag: num(raw.giftFlag),
    imageFlag: num(raw.imageFlag),
    itemCaption: text(raw.itemCaption),
    itemCode: requiredText(raw.itemCode, "itemCode"),
    itemName: text(raw.itemName),
    itemPrice: num(raw.itemPrice),
    itemUrl: text(raw.itemUrl),
    mediumImageUrls: sortedUrls(raw.mediumImageUrls),
    pointRate: num(raw.pointRate),
    pointRateEndTime: text(raw.pointRateEndTime),
    pointRateStartTime: text(raw.pointRateStartTime),
    postageFlag: num(raw.postageFlag),
    reviewAverage: num(raw.reviewAverage),
    reviewCount: num(raw.reviewCount),
    shopCode: text(raw.shopCode),
    shopName: text(raw.shopName),
    shopOfTheYearFlag: num(raw.shopOfTheYearFlag),
    shopUrl: text(raw.shopUrl),
    smallImageUrls: sortedUrls(raw.smallImageUrls),
    startTime: text(raw.startTime),
    tagIds: sortedIds(raw.tagIds),
    taxFlag: num(raw.taxFlag),
  };
}
