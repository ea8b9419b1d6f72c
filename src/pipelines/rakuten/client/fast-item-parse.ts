import type { z } from "zod";
import {
  averageField,
  countField,
  imageListField,
  isPlainObject,
  isRefusal,
  numberField,
  priceField,
  REFUSED,
  tagIdsField,
  textField,
} from "./field-rules.ts";
import { isZeroHitAnswer, type itemSearchSchema, type RakutenItemPayload } from "./schemas.ts";

/** What itemSearchSchema gives for an Item Search body. */
export type ItemSearchPayload = z.output<typeof itemSearchSchema>;

type FieldKind = "code" | "text" | "number" | "price" | "count" | "average" | "images" | "tags";

/** The field's value by the rule itemSchema applies to its kind (a switch: this is hot). */
function field(kind: FieldKind, v: unknown): unknown {
  switch (kind) {
    case "code":
      return typeof v === "string" ? v : typeof v === "number" ? String(v) : REFUSED.text;
    case "text":
      return textField(v);
    case "number":
      return numberField(v);
    case "price":
      return priceField(v);
    case "count":
      return countField(v);
    case "average":
      return averageField(v);
    case "images":
      return imageListField(v);
    case "tags":
      return tagIdsField(v);
  }
}

/** Every field of itemSchema with the rule its schema applies (same order as the schema). */
const ITEM_FIELDS: ReadonlyArray<readonly [keyof RakutenItemPayload, FieldKind]> = [
  ["itemCode", "code"],
  ["itemName", "text"],
  ["catchcopy", "text"],
  ["itemCaption", "text"],
  ["itemPrice", "price"],
  ["itemUrl", "text"],
  ["affiliateUrl", "text"],
  ["affiliateRate", "number"],
  ["imageFlag", "number"],
  ["smallImageUrls", "images"],
  ["mediumImageUrls", "images"],
  ["availability", "number"],
  ["taxFlag", "number"],
  ["postageFlag", "number"],
  ["creditCardFlag", "number"],
  ["shopOfTheYearFlag", "number"],
  ["giftFlag", "number"],
  ["startTime", "text"],
  ["endTime", "text"],
  ["reviewCount", "count"],
  ["reviewAverage", "average"],
  ["pointRate", "number"],
  ["pointRateStartTime", "text"],
  ["pointRateEndTime", "text"],
  ["shopName", "text"],
  ["shopCode", "text"],
  ["shopUrl", "text"],
  ["genreId", "number"],
  ["tagIds", "tags"],
];

/** The fields of an Item Search item, in the schema's order. */
export const ITEM_FIELD_NAMES: readonly string[] = ITEM_FIELDS.map(([name]) => name);

/** Every field, in order, set to null: a fast-properties object that `item` copies and fills. */
const ITEM_TEMPLATE: Readonly<Record<string, unknown>> = {
  ...Object.fromEntries(ITEM_FIELD_NAMES.map((name) => [name, null])),
};

function item(raw: unknown): RakutenItemPayload | undefined {
  // formatVersion 1 wraps each item as {"Item": {...}}.
  let v = raw;
  if (isPlainObject(v) && "Item" in v && Object.keys(v).length === 1) v = v.Item;
  if (!isPlainObject(v)) return undefined;
  // Filled in place: adding 29 properties by computed name would turn the object into a
  // dictionary, and every later read and copy of it (a spread costs ~5 µs) would be slow.
  const out: Record<string, unknown> = { ...ITEM_TEMPLATE };
  // A refused value is left to the schema, which names the field.
  for (const [name, kind] of ITEM_FIELDS) {
    const value = field(kind, v[name]);
    if (isRefusal(value)) return undefined;
    out[name] = value;
  }
  return out as RakutenItemPayload;
}

/**
 * itemSearchSchema's result for a parsed Item Search body, built by hand: the zod schema costs
 * more than the rest of a target's work. It follows the schema's rules field by field and
 * gives up (undefined) on any value it is not sure of, so zod decides those (and writes the
 * error); a test checks that both agree.
 */
export function parseItemSearchFast(json: unknown): ItemSearchPayload | undefined {
  if (!isPlainObject(json)) return undefined;
  const rawItems = json.Items;
  let items: RakutenItemPayload[] = [];
  if (rawItems !== undefined && rawItems !== null) {
    if (!Array.isArray(rawItems)) return undefined;
    items = [];
    for (const raw of rawItems) {
      const it = item(raw);
      if (it === undefined) return undefined;
      items.push(it);
    }
  }
  const count = numberField(json.count);
  const page = numberField(json.page);
  const pageCount = numberField(json.pageCount);
  const hits = numberField(json.hits);
  if (isRefusal(count) || isRefusal(page) || isRefusal(pageCount) || isRefusal(hits)) {
    return undefined;
  }
  const body = { count, page, pageCount, hits, Items: items };
  // No items, but not the zero-hit answer: the schema refuses it, naming the field.
  return items.length === 0 && !isZeroHitAnswer(body) ? undefined : body;
}
