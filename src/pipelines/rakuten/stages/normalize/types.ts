/**
 * The normalized documents of the four Rakuten entities: what is hashed, stored in the raw
 * store and handed to the appliers. Field names are the API's (formatVersion 2 spelling),
 * whatever format the client asked for; types are fixed at the boundary (numbers are numbers,
 * text is trimmed, empty text is null). Keys are sorted when the document is serialized
 * (canonical JSON), so object key order never matters.
 */

/** The entities of the pipeline (the ledger's `entity` column). */
export type RakutenEntity = "ranking" | "item" | "genre" | "tag";

/** Entity names, in the order the jobs usually run. */
export const RAKUTEN_ENTITIES: readonly RakutenEntity[] = ["ranking", "item", "genre", "tag"];

/** The ledger's `source` column for every Rakuten row. */
export const RAKUTEN_SOURCE = "rakuten";

/** One item (Item Search by `itemCode`); source id = `itemCode` (`shop:1234`). */
export interface NormalizedItem {
  itemCode: string;
  itemName: string | null;
  catchcopy: string | null;
  itemCaption: string | null;
  itemPrice: number | null;
  itemUrl: string | null;
  affiliateUrl: string | null;
  affiliateRate: number | null;
  /** 1 when the item has images. */
  imageFlag: number | null;
  /** 64x64 thumbnails, sorted (their order carries no meaning). */
  smallImageUrls: string[];
  /** 128x128 thumbnails, sorted. */
  mediumImageUrls: string[];
  /** 1 = in stock. */
  availability: number | null;
  /** 0 = tax included. */
  taxFlag: number | null;
  /** 0 = postage included. */
  postageFlag: number | null;
  creditCardFlag: number | null;
  shopOfTheYearFlag: number | null;
  /** 1 = gift wrapping / noshi accepted. */
  giftFlag: number | null;
  /** Sale window (`YYYY-MM-DD HH:mm` JST as the API writes it), null when none. */
  startTime: string | null;
  endTime: string | null;
  reviewCount: number | null;
  reviewAverage: number | null;
  pointRate: number | null;
  pointRateStartTime: string | null;
  pointRateEndTime: string | null;
  shopName: string | null;
  shopCode: string | null;
  shopUrl: string | null;
  genreId: number | null;
  /** Rakuten tag ids, ascending. */
  tagIds: number[];
}

/** One entry of a ranking, in API (rank) order. */
export interface NormalizedRankingEntry {
  rank: number;
  itemCode: string;
  itemName: string | null;
  itemPrice: number | null;
  reviewCount: number | null;
  reviewAverage: number | null;
  shopCode: string | null;
  shopName: string | null;
  genreId: number | null;
}

/**
 * A genre's ranking (Ranking API, `genreId`); source id = the genre id (`0` = all genres).
 * `lastBuildDate` is left out: it changes with every rebuild even when the ranking does not.
 */
export interface NormalizedRanking {
  genreId: number;
  title: string | null;
  /** Rank order kept exactly as the API answered. */
  items: NormalizedRankingEntry[];
}

/** A genre as it appears in a path or a child list. */
export interface NormalizedGenreRef {
  genreId: number;
  genreName: string | null;
  genreLevel: number;
}

/** One genre (Genre Search, `genreId`); source id = the genre id. */
export interface NormalizedGenre {
  genreId: number;
  genreName: string | null;
  genreLevel: number;
  /** Ancestors from the top level down (API order). */
  parents: NormalizedGenreRef[];
  /** Direct children (API order). */
  children: NormalizedGenreRef[];
}

/** One tag with its group (Tag Search, `tagId`); source id = the tag id. */
export interface NormalizedTag {
  tagId: number;
  tagName: string | null;
  /** 0 when the tag has no parent. */
  parentTagId: number;
  tagGroupId: number;
  tagGroupName: string | null;
}

/** Normalized document per entity. */
export interface NormalizedByEntity {
  ranking: NormalizedRanking;
  item: NormalizedItem;
  genre: NormalizedGenre;
  tag: NormalizedTag;
}
