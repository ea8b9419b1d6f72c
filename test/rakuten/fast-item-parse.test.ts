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
      { itemPrice: "3980", reviewAverage: " 4.5 ", reviewCount: "", genreId: "abc" },
      { itemPrice: null, affiliateRate: true, imageFlag: { x: 1 }, availability: [1] },
      { itemName: 123, catchcopy: null, itemCaption: false, shopName: 1.5e21 },
      { itemCode: 12345, shopCode: undefined, startTime: undefined, tagIds: undefined },
      { tagIds: ["100", 200, -3, 1.5, "x", 0], smallImageUrls: null, mediumImageUrls: [] },
      { smallImageUrls: ["a", { imageUrl: "b", extra: 1 }, " c "] },
      { extraField: "dropped", itemPrice: "1e3", pointRate: "0x10" },
    ];
    for (const patch of patches) {
      expectAgrees(body(3, 2, patch));
      expectAgrees(body(4, 1, patch));
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
