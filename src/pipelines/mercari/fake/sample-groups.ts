import type { GroupSpec } from "./listing.ts";

/**
 * How sellers name one brand: Mercari's search returns them all for the brand keyword (romaji
 * with and without diacritics, katakana only, full-width, a sub-brand).
 */
export const BRAND_NAMES: readonly string[] = [
  "COMME des GARÇONS HOMME",
  "コムデギャルソン",
  "junya watanabe",
  "Comme des Garcons",
  "ＣＯＭＭＥ ｄｅｓ ＧＡＲＣＯＮＳ",
  "コム・デ・ギャルソン PLAY",
];

/** Sample groups served by `tidemark fake mercari` and the demo. */
export const SAMPLE_GROUPS: readonly GroupSpec[] = [
  { keyword: "Nintendo Switch", count: 300, categoryId: 701, priceMin: 15_000, priceMax: 38_000 },
  { keyword: "ポケモンカード", count: 200, categoryId: 1289, priceMin: 300, priceMax: 8000 },
  { keyword: "iPhone 13", count: 250, categoryId: 7, priceMin: 30_000, priceMax: 90_000 },
  {
    keyword: "comme des garcons",
    count: 220,
    priceMin: 3000,
    priceMax: 40_000,
    names: BRAND_NAMES,
  },
];
