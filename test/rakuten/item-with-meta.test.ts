import { describe, expect, it } from "vitest";
import { parseItemSearchFast } from "../../src/pipelines/rakuten/client/fast-item-parse.ts";
import { itemWithMeta } from "../../src/pipelines/rakuten/client/item-with-meta.ts";
import { itemSearchSchema } from "../../src/pipelines/rakuten/client/schemas.ts";
import { FakeCatalogue } from "../../src/pipelines/rakuten/fake/catalogue.ts";
import { itemForSearch, itemSearchBody } from "../../src/pipelines/rakuten/fake/fake-bodies.ts";

const catalogue = new FakeCatalogue({ size: 20 });
const meta = { fetched_at: "2026-11-24T00:00:00.000Z", api_version: "20220601", http_status: 200 };

/** A parsed fake Item Search body holding item i. */
function json(i: number): unknown {
  const item = itemForSearch(catalogue.itemAt(i), 2);
  const b = itemSearchBody({ items: [item], count: 1, page: 1, hits: 1, zeroItems: "empty" });
  return JSON.parse(JSON.stringify(b));
}

describe("itemWithMeta", () => {
  it("is { ...item, ...meta }, key order included, for items of both parse paths", () => {
    for (let i = 0; i < 20; i++) {
      const fast = parseItemSearchFast(json(i))?.Items[0];
      const slow = itemSearchSchema.parse(json(i)).Items[0];
      for (const item of [fast, slow]) {
        if (item === undefined) throw new Error(`no item ${i}`);
        const combined = itemWithMeta(item, meta);
        expect(combined).toStrictEqual({ ...item, ...meta });
        expect(Object.keys(combined)).toEqual(Object.keys({ ...item, ...meta }));
      }
    }
  });

  it("gives each item its own object (the template is never changed)", () => {
    const item = parseItemSearchFast(json(0))?.Items[0];
    if (item === undefined) throw new Error("no item");
    const a = itemWithMeta(item, meta);
    const b = itemWithMeta({ ...item, itemName: "other" }, { ...meta, http_status: 203 });
    expect(a.itemName).toBe(item.itemName);
    expect(a.http_status).toBe(200);
    expect(b.itemName).toBe("other");
    expect(b.http_status).toBe(203);
  });
});
