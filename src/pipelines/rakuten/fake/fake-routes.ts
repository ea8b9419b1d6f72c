import type { RakutenApi } from "../client/endpoints.ts";
import type { FakeGenre } from "./catalogue.ts";
import { TAG_GROUPS } from "./catalogue-data.ts";
import {
  type ErrorShape,
  errorBody,
  type FakeAnswer,
  genreBody,
  itemForRanking,
  itemForSearch,
  itemSearchBody,
  json,
  lastBuildDate,
  tagBody,
} from "./fake-bodies.ts";
import type { RakutenApiFake } from "./rakuten-api-fake.ts";

/** Every tag id of the catalogue. */
const ALL_TAG_IDS = TAG_GROUPS.flatMap((g) => g.tags.map(([id]) => id));

/** A parameter error (400 wrong_parameter). */
class WrongParameter extends Error {}

/** An integer parameter within bounds, or the default when absent. */
function intParam(q: URLSearchParams, name: string, min: number, max: number, def: number): number {
  const raw = q.get(name);
  if (raw === null || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new WrongParameter(`${name} must be a number`);
  if (n < min || n > max) throw new WrongParameter(`${name} must be between ${min} and ${max}`);
  return n;
}

function formatVersion(q: URLSearchParams): 1 | 2 {
  return intParam(q, "formatVersion", 1, 2, 1) === 2 ? 2 : 1;
}

/** Answers one API call from the catalogue (after the gate let it through). */
export function answerApi(
  fake: RakutenApiFake,
  api: RakutenApi,
  q: URLSearchParams,
  shape: ErrorShape,
): FakeAnswer {
  try {
    switch (api) {
      case "item":
        return itemSearch(fake, q);
      case "ranking":
        return ranking(fake, q, shape);
      case "genre":
        return genreSearch(fake, q, shape);
      case "tag":
        return tagSearch(fake, q, shape);
    }
  } catch (err) {
    if (err instanceof WrongParameter) return json(errorBody(shape, 400, err.message), 400);
    throw err;
  }
}

function itemSearch(fake: RakutenApiFake, q: URLSearchParams): FakeAnswer {
  const version = formatVersion(q);
  const hits = intParam(q, "hits", 1, 30, 30);
  const page = intParam(q, "page", 1, 100, 1);
  const cat = fake.catalogue;
  const itemCode = q.get("itemCode");
  const genreId = q.get("genreId");
  const shopCode = q.get("shopCode");
  const keyword = q.get("keyword");
  let indexes: number[];
  if (itemCode) {
    const i = cat.indexOf(itemCode);
    // The common call (one listed item, first page) is answered from the item's cached bytes.
    if (i !== undefined && page === 1 && cat.isListed(i)) {
      return fake.itemBodies.answer(i, version, () =>
        json(
          itemSearchBody({
            items: [itemForSearch(cat.itemAt(i), version)],
            count: 1,
            page,
            hits,
            zeroItems: fake.knobs.zeroItems,
          }),
        ),
      );
    }
    indexes = i !== undefined && cat.isListed(i) ? [i] : [];
  } else if (genreId) {
    indexes = cat.genreItemIndexes(intParam(q, "genreId", 0, 999_999_999, 0));
  } else if (shopCode || keyword) {
    indexes = cat.itemCodes().flatMap((code) => {
      const it = cat.item(code);
      const hit = it && (shopCode ? it.shopCode === shopCode : it.itemName.includes(keyword ?? ""));
      const i = cat.indexOf(code);
      return hit && i !== undefined ? [i] : [];
    });
  } else {
    throw new WrongParameter("keyword, genreId, itemCode or shopCode is required");
  }
  const slice = indexes.slice((page - 1) * hits, page * hits);
  const items = slice.map((i) => itemForSearch(cat.itemAt(i), version));
  return json(
    itemSearchBody({ items, count: indexes.length, page, hits, zeroItems: fake.knobs.zeroItems }),
  );
}

function ranking(fake: RakutenApiFake, q: URLSearchParams, shape: ErrorShape): FakeAnswer {
  const version = formatVersion(q);
  const genreId = intParam(q, "genreId", 0, 999_999_999, 0);
  const page = intParam(q, "page", 1, 34, 1);
  const cat = fake.catalogue;
  if (!cat.genres.has(genreId)) return json(errorBody(shape, 404), 404);
  const ranked = cat.rankedIndexes(genreId).slice((page - 1) * 30, page * 30);
  const name = genreId === 0 ? "総合" : cat.genreName(genreId);
  return json({
    title: `【楽天市場】ランキング市場 ${name}`,
    lastBuildDate: lastBuildDate(new Date(fake.now())),
    Items: ranked.map((i, k) => itemForRanking(cat.itemAt(i), (page - 1) * 30 + k + 1, version)),
  });
}

function genreSearch(fake: RakutenApiFake, q: URLSearchParams, shape: ErrorShape): FakeAnswer {
  if (q.get("genreId") === null) throw new WrongParameter("genreId is required");
  const genreId = intParam(q, "genreId", 0, 999_999_999, 0);
  const cat = fake.catalogue;
  const current = cat.genres.get(genreId);
  if (current === undefined) return json(errorBody(shape, 404), 404);
  const all = [...cat.genres.values()];
  const parents: FakeGenre[] = [];
  for (let p = current.parentId; p !== undefined && p !== 0; ) {
    const g = cat.genres.get(p);
    if (g === undefined) break;
    parents.unshift(g);
    p = g.parentId;
  }
  const brothers =
    current.parentId === undefined
      ? []
      : all.filter((g) => g.parentId === current.parentId && g.genreId !== genreId);
  const children = all.filter((g) => g.parentId === genreId);
  return json(
    genreBody({
      current,
      parents,
      brothers,
      children,
      // Every genre of the fake uses every tag group of the catalogue.
      tagGroups: genreId === 0 ? [] : cat.tagGroups(ALL_TAG_IDS),
      nameOf: (id) => cat.genreName(id) ?? "",
      version: formatVersion(q),
    }),
  );
}

function tagSearch(fake: RakutenApiFake, q: URLSearchParams, shape: ErrorShape): FakeAnswer {
  const raw = q.get("tagId");
  if (!raw) throw new WrongParameter("tagId is required");
  const ids = raw.split(",").map((s) => Number(s.trim()));
  if (ids.length > 10 || ids.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new WrongParameter("tagId must be up to 10 comma-separated numbers");
  }
  const groups = fake.catalogue.tagGroups(ids);
  if (groups.length === 0) return json(errorBody(shape, 404), 404);
  return json(tagBody(groups, formatVersion(q)));
}
