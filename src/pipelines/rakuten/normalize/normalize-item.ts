import type { RakutenItemPayload } from "../client/schemas.ts";
import { num, requiredText, sortedIds, sortedUrls, sortKeys, text } from "./rules.ts";
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
  return sortKeys<NormalizedItem>({
    itemCode: requiredText(raw.itemCode, "itemCode"),
    itemName: text(raw.itemName),
    catchcopy: text(raw.catchcopy),
    itemCaption: text(raw.itemCaption),
    itemPrice: num(raw.itemPrice),
    itemUrl: text(raw.itemUrl),
    affiliateUrl: text(raw.affiliateUrl),
    affiliateRate: num(raw.affiliateRate),
    imageFlag: num(raw.imageFlag),
    smallImageUrls: sortedUrls(raw.smallImageUrls),
    mediumImageUrls: sortedUrls(raw.mediumImageUrls),
    availability: num(raw.availability),
    taxFlag: num(raw.taxFlag),
    postageFlag: num(raw.postageFlag),
    creditCardFlag: num(raw.creditCardFlag),
    shopOfTheYearFlag: num(raw.shopOfTheYearFlag),
    giftFlag: num(raw.giftFlag),
    startTime: text(raw.startTime),
    endTime: text(raw.endTime),
    reviewCount: num(raw.reviewCount),
    reviewAverage: num(raw.reviewAverage),
    pointRate: num(raw.pointRate),
    pointRateStartTime: text(raw.pointRateStartTime),
    pointRateEndTime: text(raw.pointRateEndTime),
    shopName: text(raw.shopName),
    shopCode: text(raw.shopCode),
    shopUrl: text(raw.shopUrl),
    genreId: num(raw.genreId),
    tagIds: sortedIds(raw.tagIds),
  });
}
