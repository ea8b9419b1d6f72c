import type { Rng } from "./rng.ts";

/** A listing's state in the fake catalogue. */
export type FakeStatus = "on_sale" | "trading" | "sold_out";

/** One listing of the fake catalogue (a regular item or a Shops product). */
export interface FakeListing {
  id: string;
  name: string;
  /** Searched too, as Mercari does: some listings match only through it. */
  description: string;
  price: number;
  status: FakeStatus;
  shop: boolean;
  /** Shows no price: search answers Mercari's placeholder (`"9999999"`, `isNoPrice: true`). */
  noPrice: boolean;
  /** A Shops product's running time-sale price (below `price`), when it has one. */
  timeSalePrice?: number;
  sellerId: string;
  categoryId: number;
  /** Unix seconds. */
  created: number;
  updated: number;
  /** NFKC + lower case of name + description, for keyword matching. */
  searchText: string;
  /** The keyword group it was generated for. */
  group: string;
}

/** How a keyword group is generated. */
export interface GroupSpec {
  keyword: string;
  /** Listings created at once, spread over the 30 days before the catalogue's now. */
  count: number;
  categoryId?: number;
  priceMin?: number;
  priceMax?: number;
  /** Share of Mercari Shops products (default 0.15). */
  shopShare?: number;
  /** Share already sold or trading (default 0.4). */
  soldShare?: number;
  /** Share whose name lacks the keyword (found through the description; default 0.03). */
  descriptionOnlyShare?: number;
  /**
   * How sellers spell the brand in names (katakana, romaji, diacritics, sub-brands); Mercari's
   * brand dictionary finds them all for the keyword. Default: the keyword itself.
   */
  names?: readonly string[];
  /** Share of listings showing no price (default 0.02). */
  noPriceShare?: number;
  /** Share of Shops products on a time sale (default 0.3). */
  timeSaleShare?: number;
}

/** Keyword text as the fake (and Mercari) compares it: NFKC, lower case. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** The keyword's tokens (whitespace-separated, normalised). */
export function keywordTokens(keyword: string): string[] {
  return normalizeText(keyword)
    .split(/\s+/u)
    .filter((t) => t !== "");
}

const VARIANTS = ["本体", "セット", "限定版", "ジャンク", "美品", "新品未開封", "箱付き", "中古"];
const EXTRAS = ["送料無料", "即購入OK", "値下げ", "動作確認済み", "付属品あり", ""];
const OTHER_NAMES = ["まとめ売り", "おまとめ品", "セット販売", "未使用品"];
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A regular id (`m` + 11 digits) or a Shops id (22 alphanumerics), new to `taken`. */
export function newListingId(rng: Rng, shop: boolean, taken: { has(id: string): boolean }): string {
  for (;;) {
    const id = shop
      ? Array.from({ length: 22 }, () => rng.pick([...ALNUM])).join("")
      : `m${String(rng.int(10_000_000, 99_999_999))}${String(rng.int(100, 999))}`;
    if (!taken.has(id)) return id;
  }
}

/** Resolved generation parameters of a group. */
export interface GroupParams {
  keyword: string;
  categoryId: number;
  priceMin: number;
  priceMax: number;
  shopShare: number;
  soldShare: number;
  descriptionOnlyShare: number;
  names: readonly string[];
  noPriceShare: number;
  timeSaleShare: number;
}

/** Fills a spec's defaults. */
export function groupParams(spec: GroupSpec): GroupParams {
  const priceMin = spec.priceMin ?? 1000;
  return {
    keyword: spec.keyword,
    categoryId: spec.categoryId ?? 1,
    priceMin,
    priceMax: Math.max(priceMin, spec.priceMax ?? priceMin * 5),
    shopShare: spec.shopShare ?? 0.15,
    soldShare: spec.soldShare ?? 0.4,
    descriptionOnlyShare: spec.descriptionOnlyShare ?? 0.03,
    names: spec.names && spec.names.length > 0 ? spec.names : [spec.keyword],
    noPriceShare: spec.noPriceShare ?? 0.02,
    timeSaleShare: spec.timeSaleShare ?? 0.3,
  };
}

/** Mercari's placeholder price of a listing that shows none. */
export const NO_PRICE = 9_999_999;

/** The price search shows and filters on: the placeholder for a listing without one. */
export function shownPrice(l: Pick<FakeListing, "noPrice" | "price">): number {
  return l.noPrice ? NO_PRICE : l.price;
}

/** Rounds a price to 10 yen, at least 300 (Mercari's minimum). */
export function roundPrice(price: number): number {
  return Math.max(300, Math.round(price / 10) * 10);
}

/** Generates one on-sale listing of a group created at `created` (unix seconds). */
export function makeListing(
  rng: Rng,
  g: GroupParams,
  created: number,
  taken: { has(id: string): boolean },
): FakeListing {
  const shop = rng.chance(g.shopShare);
  const id = newListingId(rng, shop, taken);
  const descriptionOnly = rng.chance(g.descriptionOnlyShare);
  const extra = rng.pick(EXTRAS);
  const name = descriptionOnly
    ? `${rng.pick(OTHER_NAMES)} ${rng.pick(VARIANTS)}`
    : `${rng.pick([...g.names])} ${rng.pick(VARIANTS)}${extra ? ` ${extra}` : ""}`;
  const description = `${g.keyword} の出品です。`;
  const price = roundPrice(rng.int(g.priceMin, g.priceMax));
  const timeSale = shop && rng.chance(g.timeSaleShare);
  return {
    id,
    name,
    description,
    price,
    status: "on_sale",
    shop,
    noPrice: rng.chance(g.noPriceShare),
    ...(timeSale ? { timeSalePrice: roundPrice(price * 0.95) } : {}),
    sellerId: shop ? `shop${id.slice(0, 8)}` : String(rng.int(100_000_000, 999_999_999)),
    categoryId: g.categoryId,
    created,
    updated: created,
    // The group's keyword stands in for Mercari's brand dictionary: the search finds every
    // spelling of the brand, whatever the name says.
    searchText: normalizeText(`${name}\n${description}\n${g.keyword}`),
    group: normalizeText(g.keyword),
  };
}
