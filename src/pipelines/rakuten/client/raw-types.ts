import type {
  RakutenGenreRefPayload,
  RakutenItemPayload,
  RakutenRankingItemPayload,
  RakutenTagGroupPayload,
} from "./schemas.ts";

/**
 * What the client adds to every payload about the call itself. Normalization drops these (and
 * the other meta keys of its list) so they never reach the hash.
 */
export interface FetchMeta {
  /** When the answer arrived (ISO-8601 UTC). */
  fetched_at: string;
  /** The endpoint version asked for, e.g. `20220601`. */
  api_version: string;
  http_status: number;
}

/** One item from Item Search (`itemCode`), boundary-typed. */
export type RakutenItemRaw = RakutenItemPayload & FetchMeta;

/** A genre's ranking; `genreId` is the one asked for (the API does not echo it). */
export interface RakutenRankingRaw extends FetchMeta {
  genreId: number;
  title: string | null;
  lastBuildDate: string | null;
  Items: RakutenRankingItemPayload[];
}

/** Genre Search for one genre. */
export interface RakutenGenreRaw extends FetchMeta {
  current: RakutenGenreRefPayload;
  parents: RakutenGenreRefPayload[];
  brothers: RakutenGenreRefPayload[];
  children: RakutenGenreRefPayload[];
}

/** Tag Search for one tag id: the groups answered, and the id asked for. */
export interface RakutenTagRaw extends FetchMeta {
  tagId: number;
  tagGroups: RakutenTagGroupPayload[];
}
