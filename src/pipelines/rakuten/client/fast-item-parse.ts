import type { z } from "zod";
import type { itemSearchSchema, RakutenItemPayload } from "./schemas.ts";

/** What itemSearchSchema gives for an Item Search body. */
export type ItemSearchPayload = z.output<typeof itemSearchSchema>;

type FieldKind = "code" | "text" | "number" | "images" | "tags";

/** Every field of itemSchema with the rule its schema applies (same order as the schema). */
const ITEM_FIELDS: ReadonlyArray<readonly [keyof RakutenItemPayload, FieldKind]> = [
  ["itemCode", "code"],
  ["itemName", "text"],
  ["catchcopy", "text"],
  ["itemCaption", "text"],
  ["itemPrice", "number"],
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
  ["reviewCount", "number"],
  ["reviewAverage", "number"],
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

// Returned by a field rule when the value is not one the fast path is sure about.
const UNSURE = Symbol("unsure");

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** looseNumber: a number, a numeric string, or null (anything else is null too). */
function looseNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** looseText: text, a number as its decimal text, or null. */
function looseText(v: unknown): string | null {
  if (typeof v === "string") return v;
  return typeof v === "number" ? String(v) : null;
}

function imageList(v: unknown): string[] | typeof UNSURE {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return UNSURE;
  const out: string[] = [];
  for (const e of v) {
    if (typeof e === "string") out.push(e);
    else if (isPlainObject(e) && typeof e.imageUrl === "string") out.push(e.imageUrl);
    else return UNSURE;
  }
  return out;
}

function tagIdList(v: unknown): number[] | typeof UNSURE {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return UNSURE;
  const out: number[] = [];
  for (const e of v) {
    if (typeof e !== "number" && typeof e !== "string") return UNSURE;
    const n = Number(e);
    if (Number.isInteger(n) && n > 0) out.push(n);
  }
  return out;
}

function field(kind: FieldKind, v: unknown): unknown {
  switch (kind) {
    case "code":
      return typeof v === "string" ? v : typeof v === "number" ? String(v) : UNSURE;
    case "text":
      return looseText(v);
    case "number":
      return looseNumber(v);
    case "images":
      return imageList(v);
    case "tags":
      return tagIdList(v);
  }
}

function item(raw: unknown): RakutenItemPayload | undefined {
  // formatVersion 1 wraps each item as {"Item": {...}}.
  let v = raw;
  if (isPlainObject(v) && "Item" in v && Object.keys(v).length === 1) v = v.Item;
  if (!isPlainObject(v)) return undefined;
  // Filled in place: adding 29 properties by computed name would turn the object into a
  // dictionary, and every later read and copy of it (a spread costs ~5 µs) would be slow.
  const out: Record<string, unknown> = { ...ITEM_TEMPLATE };
  for (const [name, kind] of ITEM_FIELDS) {
    const value = field(kind, v[name]);
    if (value === UNSURE) return undefined;
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
  return {
    count: looseNumber(json.count),
    page: looseNumber(json.page),
    pageCount: looseNumber(json.pageCount),
    hits: looseNumber(json.hits),
    Items: items,
  };
}
