import { createHash } from "node:crypto";
import { canonicalJson } from "tidemark/kit";
import { describe, expect, it } from "vitest";
import { itemSearchSchema, rankingSchema } from "../../src/pipelines/rakuten/client/schemas.ts";
import {
  computeContentHash,
  normalize,
} from "../../src/pipelines/rakuten/stages/normalize/normalize.ts";
import { normalizeGenre } from "../../src/pipelines/rakuten/stages/normalize/normalize-genre.ts";
import {
  ITEM_NULLABLE_TEXT,
  normalizeItem,
} from "../../src/pipelines/rakuten/stages/normalize/normalize-item.ts";
import { normalizeRanking } from "../../src/pipelines/rakuten/stages/normalize/normalize-ranking.ts";
import { normalizeTag } from "../../src/pipelines/rakuten/stages/normalize/normalize-tag.ts";
import { EXCLUDED_META_KEYS } from "../../src/pipelines/rakuten/stages/normalize/rules.ts";

/** An Item Search item as the client hands it over (boundary-typed, with fetch meta). */
function rawItem(over: Record<string, unknown> = {}) {
  const parsed = itemSearchSchema.parse({
    Items: [
      {
        itemCode: "hanairo-gift:10001",
        itemName: "  【送料無料】今治タオル ギフトセット  ",
        catchcopy: "",
        itemCaption: "贈り物に。",
        itemPrice: 3980,
        itemUrl: "https://item.rakuten.co.jp/hanairo-gift/10001/",
        affiliateUrl: "",
        smallImageUrls: ["https://img/b.jpg?_ex=64x64", "https://img/a.jpg?_ex=64x64"],
        mediumImageUrls: ["https://img/b.jpg?_ex=128x128", "https://img/a.jpg?_ex=128x128"],
        availability: 1,
        reviewCount: 12,
        reviewAverage: 4.5,
        shopName: "京都ギフト本舗",
        shopCode: "hanairo-gift",
        shopUrl: "https://www.rakuten.co.jp/hanairo-gift/",
        genreId: "101862",
        tagIds: [1000905, 1000317, 1000901],
        startTime: "",
        ...over,
      },
    ],
  });
  const item = parsed.Items[0];
  if (!item) throw new Error("no item");
  return {
    ...item,
    fetched_at: "2026-11-24T00:00:00.000Z",
    api_version: "20220601",
    http_status: 200,
  };
}

describe("rakuten normalization", () => {
  it("sorts images and tag ids, trims text, turns empty text into null, sorts keys", () => {
    const doc = normalizeItem(rawItem());
    expect(doc.itemName).toBe("【送料無料】今治タオル ギフトセット");
    expect(doc.catchcopy).toBeNull();
    expect(doc.affiliateUrl).toBeNull();
    expect(doc.startTime).toBeNull();
    expect(doc.smallImageUrls).toEqual([
      "https://img/a.jpg?_ex=64x64",
      "https://img/b.jpg?_ex=64x64",
    ]);
    expect(doc.mediumImageUrls[0]).toBe("https://img/a.jpg?_ex=128x128");
    expect(doc.tagIds).toEqual([1000317, 1000901, 1000905]);
    expect(doc.genreId).toBe(101862);
    expect(Object.keys(doc)).toEqual([...Object.keys(doc)].sort());
    for (const key of ITEM_NULLABLE_TEXT) expect(doc[key] === null || doc[key] !== "").toBe(true);
  });

  it("leaves every meta key out of the document", () => {
    const raw = { ...rawItem(), requested_at: "x", request_id: "r-1", response_headers: {} };
    const doc = normalizeItem(raw) as unknown as Record<string, unknown>;
    for (const key of EXCLUDED_META_KEYS) expect(doc).not.toHaveProperty(key);
  });

  it("gives the same hash whatever the image order or the fetch time", () => {
    const base = computeContentHash(normalizeItem(rawItem()));
    const reordered = rawItem({
      smallImageUrls: ["https://img/a.jpg?_ex=64x64", "https://img/b.jpg?_ex=64x64"],
      mediumImageUrls: ["https://img/a.jpg?_ex=128x128", "https://img/b.jpg?_ex=128x128"],
      tagIds: [1000901, 1000905, 1000317],
    });
    expect(computeContentHash(normalizeItem(reordered))).toBe(base);
    const later = { ...rawItem(), fetched_at: "2027-01-01T00:00:00.000Z", http_status: 203 };
    expect(computeContentHash(normalizeItem(later))).toBe(base);
    const padded = rawItem({ itemName: "【送料無料】今治タオル ギフトセット", catchcopy: "   " });
    expect(computeContentHash(normalizeItem(padded))).toBe(base);
    // formatVersion 1 image objects and a numeric genre id are the same content.
    const v1 = rawItem({
      smallImageUrls: [
        { imageUrl: "https://img/b.jpg?_ex=64x64" },
        { imageUrl: "https://img/a.jpg?_ex=64x64" },
      ],
      mediumImageUrls: [
        { imageUrl: "https://img/a.jpg?_ex=128x128" },
        { imageUrl: "https://img/b.jpg?_ex=128x128" },
      ],
      genreId: 101862,
    });
    expect(computeContentHash(normalizeItem(v1))).toBe(base);
  });

  it("changes the hash when the content changes", () => {
    const base = computeContentHash(normalizeItem(rawItem()));
    expect(computeContentHash(normalizeItem(rawItem({ itemPrice: 3990 })))).not.toBe(base);
    expect(computeContentHash(normalizeItem(rawItem({ reviewCount: 13 })))).not.toBe(base);
  });

  it("hashes exactly as Python's sorted compact json.dumps + SHA-256", () => {
    const doc = normalizeItem(rawItem());
    const text = canonicalJson(doc);
    expect(text.startsWith('{"affiliateRate":null,"affiliateUrl":null,')).toBe(true);
    expect(text).toContain('"itemName":"【送料無料】今治タオル ギフトセット"');
    expect(computeContentHash(doc)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });

  it("rejects an item without a code", () => {
    expect(() => normalizeItem(rawItem({ itemCode: "  " }))).toThrow(/itemCode is empty/);
  });

  it("keeps the ranking in API order and leaves lastBuildDate out", () => {
    const parsed = rankingSchema.parse({
      title: " 【楽天市場】ランキング市場 総合 ",
      lastBuildDate: "Sat, 28 Jan 2017 00:00:00 +0900",
      Items: [
        {
          Item: {
            rank: 1,
            itemCode: "b:2",
            itemName: "B",
            itemPrice: "3980",
            reviewAverage: "4.0",
            genreId: "201488",
            shopName: "",
          },
        },
        { Item: { rank: "2", itemCode: "a:1", itemName: "A", itemPrice: "980" } },
      ],
    });
    const doc = normalizeRanking({ genreId: 0, ...parsed });
    expect(doc.items.map((i) => i.itemCode)).toEqual(["b:2", "a:1"]);
    expect(doc.items[0]).toMatchObject({
      rank: 1,
      itemPrice: 3980,
      reviewAverage: 4,
      genreId: 201488,
      shopName: null,
    });
    expect(doc.items[1]?.rank).toBe(2);
    expect(doc.title).toBe("【楽天市場】ランキング市場 総合");
    expect(doc).not.toHaveProperty("lastBuildDate");
    const laterBuild = { ...parsed, lastBuildDate: "Sun, 29 Jan 2017 00:00:00 +0900" };
    const rebuilt = normalizeRanking({ genreId: 0, ...laterBuild });
    expect(computeContentHash(rebuilt)).toBe(computeContentHash(doc));
    const swapped = normalizeRanking({ genreId: 0, ...parsed, Items: [...parsed.Items].reverse() });
    expect(computeContentHash(swapped)).not.toBe(computeContentHash(doc));
  });

  it("reads a ranking entry with or without giftFlag and tagIds, affiliateRate as text or number", () => {
    const entry = { rank: 1, itemCode: "b:2", itemName: "B", itemPrice: "3980" };
    const real = rankingSchema.parse({ Items: [{ ...entry, affiliateRate: "1.0" }] });
    const older = rankingSchema.parse({
      Items: [{ ...entry, affiliateRate: 1, giftFlag: 1, tagIds: [1000317] }],
    });
    expect(real.Items[0]).toMatchObject({ affiliateRate: 1, giftFlag: null, tagIds: [] });
    const doc = (p: typeof real) => normalizeRanking({ genreId: 0, title: null, Items: p.Items });
    expect(computeContentHash(doc(real))).toBe(computeContentHash(doc(older)));
  });

  it("normalizes a genre (root name empty → null) and a tag", () => {
    const genre = normalizeGenre({
      current: { genreId: 100283, genreName: " スイーツ・お菓子 ", genreLevel: 2 },
      parents: [{ genreId: 100227, genreName: "食品", genreLevel: 1 }],
      children: [],
    });
    expect(genre).toEqual({
      children: [],
      genreId: 100283,
      genreLevel: 2,
      genreName: "スイーツ・お菓子",
      parents: [{ genreId: 100227, genreLevel: 1, genreName: "食品" }],
    });
    const root = normalize("genre", {
      current: { genreId: 0, genreName: "", genreLevel: 0 },
      parents: [],
      children: [],
    });
    expect(root.genreName).toBeNull();
    const tag = normalizeTag({
      tagId: 1000318,
      tagGroups: [
        {
          tagGroupId: 1000041,
          tagGroupName: "サイズ（S/M/L）",
          tags: [
            { tagId: 1000317, tagName: "SS", parentTagId: 0 },
            { tagId: 1000318, tagName: " S ", parentTagId: 0 },
          ],
        },
      ],
    });
    expect(tag).toEqual({
      parentTagId: 0,
      tagGroupId: 1000041,
      tagGroupName: "サイズ（S/M/L）",
      tagId: 1000318,
      tagName: "S",
    });
    expect(() => normalizeTag({ tagId: 5, tagGroups: [] })).toThrow(/tag 5 is not in the answer/);
  });
});
