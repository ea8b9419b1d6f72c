import { describe, expect, it } from "vitest";
import { parseItemSearchFast } from "../../src/pipelines/rakuten/client/fast-item-parse.ts";
import { itemSearchSchema } from "../../src/pipelines/rakuten/client/schemas.ts";
import { FakeCatalogue } from "../../src/pipelines/rakuten/fake/catalogue.ts";
import { itemForSearch, itemSearchBody } from "../../src/pipelines/rakuten/fake/fake-bodies.ts";

const catalogue = new FakeCatalogue({ size: 50 });

/** A fake Item Search body with one item, in either format, its item fields patched. */
function body(i: number, version: 1 | 2, patch: Record<string, unknown> = {}): unknown {
  const item = itemForSearch(catalogue.itemAt(i), version) as Record<string, unknown>;
  const target = version === 1 ? (item.Item as Record<string, unknown>) : item;
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete target[k];
    else target[k] = v;
  }
  const b = itemSearchBody({ items: [item], count: 1, page: 1, hits: 1, zeroItems: "empty" });
  return JSON.parse(JSON.stringify(b));
}

/** The fast parse either gives up or gives exactly what the zod schema gives. */
function expectAgrees(json: unknown, mustBeFast = true): void {
  const fast = parseItemSearchFast(json);
  const slow = itemSearchSchema.safeParse(json);
  if (fast === undefined) {
    expect(mustBeFast).toBe(false);
    return;
  }
  expect(slow.success).toBe(true);
  expect(fast).toStrictEqual(slow.data);
  expect(Object.keys(fast.Items[0] ?? {})).toEqual(Object.keys(slow.data?.Items[0] ?? {}));
}

describe("parseItemSearchFast", () => {
  it("agrees with itemSearchSchema on the fake's items in both formats", () => {
    for (let i = 0; i < 50; i++) {
      expectAgrees(body(i, 2));
      expectAgrees(body(i, 1));
    }
  });

  it("agrees on strings where numbers belong, numbers where text belongs, nulls and gaps", () => {
    const patches: Record<string, unknown>[] = [
      { itemPrice: "3980", reviewAverage: " 4.5 ", reviewCount: "", genreId: "101937" },
      { itemPrice: null, affiliateRate: "4.00", imageFlag: 1, availability: "1" },
      { itemName: 123, catchcopy: null, itemCaption: "", shopName: 1.5e21 },
      { itemCode: 12345, shopCode: undefined, startTime: undefined, tagIds: undefined },
      { tagIds: ["100", 200], smallImageUrls: null, mediumImageUrls: [] },
      { smallImageUrls: ["a", { imageUrl: "b", extra: 1 }, " c "] },
      { extraField: "dropped", itemPrice: "1e3", pointRate: "-1" },
    ];
    for (const patch of patches) {
      expectAgrees(body(3, 2, patch));
      expectAgrees(body(4, 1, patch));
    }
  });

  it("refuses a value of the wrong type, naming the field, instead of storing it as null", () => {
    const wrong: Array<[Record<string, unknown>, string, string]> = [
      [{ itemPrice: "abc" }, "itemPrice", "must be a number or numeric text"],
      [{ itemPrice: { x: 1 } }, "itemPrice", "must be a number or numeric text"],
      [{ reviewCount: "many" }, "reviewCount", "must be a number or numeric text"],
      [{ genreId: "abc" }, "genreId", "must be a number or numeric text"],
      [{ pointRate: "0x10" }, "pointRate", "must be a number or numeric text"],
      [{ pointRate: "1e400" }, "pointRate", "must be a number or numeric text"],
      [{ affiliateRate: true }, "affiliateRate", "must be a number or numeric text"],
      [{ availability: [1] }, "availability", "must be a number or numeric text"],
      [{ itemCaption: false }, "itemCaption", "must be text or a number"],
      [{ shopName: { ja: "店" } }, "shopName", "must be text or a number"],
      [{ tagIds: "oops" }, "tagIds", "must be a list of positive integer tag ids"],
      [{ tagIds: [1, "x"] }, "tagIds", "must be a list of positive integer tag ids"],
      [{ tagIds: [0] }, "tagIds", "must be a list of positive integer tag ids"],
      [{ tagIds: [1.5] }, "tagIds", "must be a list of positive integer tag ids"],
      [{ smallImageUrls: "x" }, "smallImageUrls", "must be a list of image URLs"],
    ];
    for (const [patch, field, message] of wrong) {
      for (const json of [body(5, 2, patch), body(6, 1, patch)]) {
        expect(parseItemSearchFast(json), field).toBeUndefined();
        const slow = itemSearchSchema.safeParse(json);
        expect(slow.success, field).toBe(false);
        expect(slow.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
          [`Items.0.${field}`, message],
        ]);
      }
    }
    const paging = itemSearchSchema.safeParse({ count: "many", Items: [] });
    expect(paging.error?.issues[0]?.path).toEqual(["count"]);
    expect(parseItemSearchFast({ count: "many", Items: [] })).toBeUndefined();
  });

  it("refuses a number the field cannot hold, naming the field, in both parses", () => {
    const price = "wrong value: a price must be a whole number of yen, 0 or more";
    const average = "wrong value: a review average must be between 0 and 5";
    const wrong: Array<[Record<string, unknown>, string, string]> = [
      [{ itemPrice: "9007199254740993" }, "itemPrice", price],
      [{ itemPrice: 1e308 }, "itemPrice", price],
      [{ itemPrice: -5 }, "itemPrice", price],
      [{ itemPrice: "1.5" }, "itemPrice", price],
      [{ reviewAverage: 1e300 }, "reviewAverage", average],
      [{ reviewAverage: "-0.5" }, "reviewAverage", average],
      [
        { reviewCount: 2.5 },
        "reviewCount",
        "wrong value: a count must be a whole number, 0 or more",
      ],
      [{ pointRate: "9007199254740993" }, "pointRate", "wrong value: beyond 2^53"],
    ];
    for (const [patch, field, message] of wrong) {
      for (const json of [body(5, 2, patch), body(6, 1, patch)]) {
        expect(parseItemSearchFast(json), field).toBeUndefined();
        const slow = itemSearchSchema.safeParse(json);
        expect(slow.error?.issues.map((i) => i.path.join("."))).toEqual([`Items.0.${field}`]);
        expect(slow.error?.issues[0]?.message).toContain(message);
      }
    }
    // The edges stay good values.
    expectAgrees(body(7, 2, { itemPrice: 0, reviewAverage: "5.00", reviewCount: "0" }));
    expectAgrees(body(7, 1, { itemPrice: Number.MAX_SAFE_INTEGER, reviewAverage: 0 }));
  });

  it("reads no items as zero hits only with count 0; `{}` or a count above 0 is refused at Items", () => {
    for (const json of [{}, { count: 3 }, { count: 1, Items: [] }, { page: 1, Items: null }]) {
      expect(parseItemSearchFast(json)).toBeUndefined();
      const slow = itemSearchSchema.safeParse(json);
      expect(slow.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
        ["Items", expect.stringContaining("no items, and count is not 0")],
      ]);
    }
  });

  it("agrees on absent, null and empty Items and on paging fields as text", () => {
    expectAgrees({ count: 0, page: 1, pageCount: 0, hits: 0 });
    expectAgrees({ count: "0", page: "1", Items: null });
    expectAgrees({ count: 0, Items: [] });
  });

  it("leaves unusual values to the schema", () => {
    const unsure: unknown[] = [
      body(1, 2, { itemCode: null }),
      body(1, 2, { tagIds: [true] }),
      body(1, 2, { tagIds: "1,2" }),
      body(1, 2, { smallImageUrls: [1] }),
      body(1, 2, { mediumImageUrls: "x" }),
      { Items: "none" },
      { Items: [null] },
      [],
      "text",
      null,
    ];
    for (const json of unsure) {
      expect(parseItemSearchFast(json)).toBeUndefined();
      expectAgrees(json, false);
    }
  });
});
