import {
  CATCHCOPIES,
  type LeafGenreSpec,
  NAME_PREFIXES,
  NAME_SUFFIXES,
  ORIGINS,
  TAG_GROUPS,
} from "./catalogue-data.ts";

/** One item as the fake holds it (formatVersion 2 field names, clean types). */
export interface FakeItem {
  itemCode: string;
  itemName: string;
  catchcopy: string;
  itemCaption: string;
  itemPrice: number;
  itemUrl: string;
  affiliateUrl: string;
  affiliateRate: number;
  imageFlag: number;
  smallImageUrls: string[];
  mediumImageUrls: string[];
  availability: number;
  taxFlag: number;
  postageFlag: number;
  creditCardFlag: number;
  shopOfTheYearFlag: number;
  giftFlag: number;
  startTime: string;
  endTime: string;
  reviewCount: number;
  reviewAverage: number;
  pointRate: number;
  pointRateStartTime: string;
  pointRateEndTime: string;
  shopName: string;
  shopCode: string;
  shopUrl: string;
  genreId: number;
  tagIds: number[];
}

/** A genre of the fake tree. */
export interface FakeGenre {
  genreId: number;
  genreName: string;
  genreLevel: number;
  parentId: number | undefined;
}

/** A shop of the fake. */
export interface FakeShop {
  code: string;
  name: string;
}

/** Item numbers start here, so codes look like `shop:10000`. */
export const ITEM_BASE = 10_000;
/** The most items the fake generates. */
export const MAX_CATALOGUE_SIZE = 100_000;

/** mulberry32: a small, fast, seeded generator. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)] as T;
}

/** Two 32-bit numbers → one well-mixed seed. */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  return Math.imul(h, 0x27d4eb2d) >>> 0;
}

/** Item number `i` of the catalogue seeded `seed`, as first generated (no test changes). */
export function generateItem(
  seed: number,
  i: number,
  leaves: readonly LeafGenreSpec[],
  shops: readonly FakeShop[],
): FakeItem {
  const r = rng(mix(seed, i));
  const leaf = leaves[Math.floor(r() * leaves.length)] as LeafGenreSpec;
  const shop = pick(r, shops);
  const noun = pick(r, leaf.nouns);
  const origin = pick(r, ORIGINS);
  const code = `${shop.code}:${ITEM_BASE + i}`;
  const [lo, hi] = leaf.price;
  const price = Math.round((lo + r() * (hi - lo)) / 10) * 10;
  const reviewCount = Math.floor(r() * r() * 800);
  const reviewAverage = reviewCount === 0 ? 0 : Math.round((3 + r() * 2) * 100) / 100;
  const images = 2 + Math.floor(r() * 2);
  const path = `https://thumbnail.image.rakuten.co.jp/@0_mall/${shop.code}/cabinet/${ITEM_BASE + i}`;
  const urls = (ex: string) =>
    Array.from({ length: images }, (_, k) => `${path}/img${k + 1}.jpg?_ex=${ex}`);
  const group = TAG_GROUPS[1 + Math.floor(r() * (TAG_GROUPS.length - 1))] ?? TAG_GROUPS[0];
  const tagIds = [pick(r, TAG_GROUPS[1]?.tags ?? []), pick(r, group?.tags ?? [])]
    .map(([id]) => id)
    .filter((id, k, all) => all.indexOf(id) === k);
  const name = `${pick(r, NAME_PREFIXES)}${origin ? `${origin} ` : ""}${noun} ${pick(r, NAME_SUFFIXES)}`;
  return {
    itemCode: code,
    itemName: name,
    catchcopy: pick(r, CATCHCOPIES),
    // As real shops write captions: HTML line breaks, tags and entities.
    itemCaption:
      `${noun}を${shop.name}が心を込めてお届けします。<br>${leaf.name}の定番ギフト。` +
      "<br><br>&lt;ご注意&gt;&nbsp;<b>包装・のし&amp;メッセージカード</b>無料",
    itemPrice: price,
    itemUrl: `https://item.rakuten.co.jp/${shop.code}/${ITEM_BASE + i}/`,
    affiliateUrl: "",
    affiliateRate: 1,
    imageFlag: 1,
    smallImageUrls: urls("64x64"),
    mediumImageUrls: urls("128x128"),
    availability: 1,
    taxFlag: 0,
    postageFlag: r() < 0.6 ? 0 : 1,
    creditCardFlag: 1,
    shopOfTheYearFlag: r() < 0.1 ? 1 : 0,
    giftFlag: r() < 0.7 ? 1 : 0,
    startTime: "",
    endTime: "",
    reviewCount,
    reviewAverage,
    pointRate: 1,
    pointRateStartTime: "",
    pointRateEndTime: "",
    shopName: shop.name,
    shopCode: shop.code,
    shopUrl: `https://www.rakuten.co.jp/${shop.code}/`,
    genreId: leaf.id,
    tagIds,
  };
}
