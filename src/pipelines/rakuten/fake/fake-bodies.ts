import type { FakeGenre, FakeItem } from "./catalogue.ts";

/** An answer of the fake, before it becomes an HTTP response (Web or node:http). */
export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or its UTF-8 bytes (a cached answer). */
  body: string | Uint8Array;
}

/** What the fake reads of a request, whichever server received it. */
export interface FakeRequest {
  method: string;
  url: URL;
  header(name: string): string | null;
  text(): Promise<string>;
}

/** A JSON answer. */
export function json(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): FakeAnswer {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
  };
}

/** Which error body the fake writes: the old host's or the new host's. */
export type ErrorShape = "old" | "new";

/** The old host's error codes by status, with Rakuten's wording. */
const OLD_ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: ["wrong_parameter", "specify valid applicationId"],
  404: ["not_found", "not found"],
  429: [
    "too_many_requests",
    "number of allowed requests has been exceeded for this API. please try again soon.",
  ],
  500: ["system_error", "api logic error"],
  503: ["service_unavailable", "IchibaItem/Search is under maintenance"],
};

/** An error body in the given shape; `message` overrides the stock wording. */
export function errorBody(shape: ErrorShape, status: number, message?: string): object {
  const [code, stock] = OLD_ERRORS[status] ?? ["system_error", "api logic error"];
  const text = message ?? stock;
  if (shape === "new") return { errors: { errorCode: status, errorMessage: text } };
  return { error: code, error_description: text };
}

/** "4.0", "4.37": how the Ranking API writes decimals. */
function decimalText(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** One item in formatVersion 1 or 2; Item Search sends `genreId` as text, prices as numbers. */
export function itemForSearch(item: FakeItem, version: 1 | 2): object {
  const body = { ...item, genreId: String(item.genreId) } as Record<string, unknown>;
  if (version === 2) return body;
  body.smallImageUrls = item.smallImageUrls.map((imageUrl) => ({ imageUrl }));
  body.mediumImageUrls = item.mediumImageUrls.map((imageUrl) => ({ imageUrl }));
  return { Item: body };
}

/**
 * One ranking entry as the Ranking API writes it: price, average, affiliate rate and genre as
 * text, and no `giftFlag` or `tagIds`.
 */
export function itemForRanking(item: FakeItem, rank: number, version: 1 | 2): object {
  const { giftFlag: _gift, tagIds: _tags, ...fields } = item;
  const body: Record<string, unknown> = {
    rank,
    ...fields,
    itemPrice: String(item.itemPrice),
    reviewAverage: decimalText(item.reviewAverage),
    affiliateRate: decimalText(item.affiliateRate),
    genreId: String(item.genreId),
  };
  if (version === 2) return body;
  body.smallImageUrls = item.smallImageUrls.map((imageUrl) => ({ imageUrl }));
  body.mediumImageUrls = item.mediumImageUrls.map((imageUrl) => ({ imageUrl }));
  return { Item: body };
}

/**
 * Item Search's top level; zero results leave `Items` out as Rakuten does, or write
 * `Items: []` (`zeroItems`).
 */
export function itemSearchBody(opts: {
  items: readonly object[];
  count: number;
  page: number;
  hits: number;
  zeroItems: "empty" | "absent";
}): object {
  const { items, count, page, hits } = opts;
  const pageCount = Math.min(100, Math.ceil(count / hits));
  const first = count === 0 ? 0 : (page - 1) * hits + 1;
  const body: Record<string, unknown> = {
    count,
    page,
    first,
    last: count === 0 ? 0 : first + items.length - 1,
    hits: items.length,
    carrier: 0,
    pageCount,
  };
  if (items.length > 0 || opts.zeroItems === "empty") body.Items = items;
  body.GenreInformation = [];
  body.TagInformation = [];
  return body;
}

/** `Sat, 28 Jan 2017 00:00:00 +0900`: the Ranking API's build date, in JST. */
export function lastBuildDate(now: Date): string {
  const jst = new Date(now.getTime() + 9 * 3600_000);
  const utc = jst.toUTCString().replace("GMT", "+0900");
  return utc;
}

/** A genre reference in formatVersion 1 (`{"child":{…}}`) or 2. */
function genreRef(g: FakeGenre, name: string, wrap: string, version: 1 | 2): object {
  const ref = { genreId: g.genreId, genreName: name, genreLevel: g.genreLevel };
  return version === 2 ? ref : { [wrap]: ref };
}

/** A tag group with its tags, as Tag Search (and Genre Search) lists them. */
export interface FakeTagGroup {
  tagGroupId: number;
  tagGroupName: string;
  tags: readonly { tagId: number; tagName: string; parentTagId: number }[];
}

/** Genre Search body: the genre's path, brothers and children, and the tag groups used in it. */
export function genreBody(opts: {
  current: FakeGenre;
  parents: readonly FakeGenre[];
  brothers: readonly FakeGenre[];
  children: readonly FakeGenre[];
  tagGroups: readonly FakeTagGroup[];
  nameOf: (id: number) => string;
  version: 1 | 2;
}): object {
  const { version, nameOf } = opts;
  const c = opts.current;
  return {
    parents: opts.parents.map((g) => genreRef(g, nameOf(g.genreId), "parent", version)),
    current: { genreId: c.genreId, genreName: nameOf(c.genreId), genreLevel: c.genreLevel },
    brothers: opts.brothers.map((g) => genreRef(g, nameOf(g.genreId), "brother", version)),
    children: opts.children.map((g) => genreRef(g, nameOf(g.genreId), "child", version)),
    tagGroups: tagGroupList(opts.tagGroups, version),
  };
}

/** Tag Search body. */
export function tagBody(groups: readonly FakeTagGroup[], version: 1 | 2): object {
  return { tagGroups: tagGroupList(groups, version) };
}

/** Tag groups in formatVersion 2, or 1's `{"tagGroup":{…,"tags":[{"tag":{…}}]}}`. */
function tagGroupList(groups: readonly FakeTagGroup[], version: 1 | 2): readonly object[] {
  if (version === 2) return groups;
  return groups.map((g) => ({ tagGroup: { ...g, tags: g.tags.map((tag) => ({ tag })) } }));
}
