// The set-based item applier (applyItems) writes exactly what the item-by-item applier writes,
// on both dialects; one bad item in a batch fails alone through the engine's fallback.
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { applyAll } from "../../src/engine/entity-etl/apply-each.ts";
import { applyItem, applyItems } from "../../src/pipelines/rakuten/jobs/apply/apply-item.ts";
import type { ApplyMeta } from "../../src/pipelines/rakuten/jobs/apply/apply-meta.ts";
import type { NormalizedItem } from "../../src/pipelines/rakuten/stages/normalize/types.ts";
import type { RakutenTables } from "../../src/pipelines/rakuten/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { itemDoc, openRakutenRuntime } from "./support/domain-runtime.ts";

const meta = (now: string, runId: string): ApplyMeta => ({
  runId,
  now: () => now,
  shopsWritten: new Map(),
});

const input = (doc: NormalizedItem, hash: string) => ({
  target: doc.itemCode,
  document: doc,
  contentHash: hash,
  rawKey: `raw/${doc.itemCode}/${hash}`,
  reason: "changed" as const,
});

/** Every row the item applier writes, in a stable order, ids included. */
async function dump(db: Kysely<RakutenTables>) {
  return {
    shops: await db.selectFrom("apl.shop").selectAll().orderBy("rakuten_shop_code").execute(),
    items: await db.selectFrom("apl.item").selectAll().orderBy("id").execute(),
    images: await db
      .selectFrom("apl.item_image")
      .selectAll()
      .orderBy("item_id")
      .orderBy("size")
      .orderBy("position")
      .execute(),
    tags: await db
      .selectFrom("apl.item_tag")
      .selectAll()
      .orderBy("item_id")
      .orderBy("rakuten_tag_id")
      .execute(),
    market: await db.selectFrom("apl.market_snapshot").selectAll().orderBy("id").execute(),
    review: await db.selectFrom("apl.review_snapshot").selectAll().orderBy("id").execute(),
  };
}

function withoutShopTimes(rows: Awaited<ReturnType<typeof dump>>) {
  return { ...rows, shops: rows.shops.map(({ updated_at: _, ...shop }) => shop) };
}

// Three rounds: a first load, then changes of every kind (price, tags, images, reviews, shop
// name, a new item), then the same documents again (a re-apply: no new snapshot or image row).
const A = itemDoc();
const B = itemDoc({ itemCode: "shop-a:2", tagIds: [], smallImageUrls: [] });
const C = itemDoc({ itemCode: "shop-b:1", shopCode: "shop-b", shopName: "B店", reviewCount: 0 });
const ROUNDS: Array<{ docs: NormalizedItem[]; now: string }> = [
  { docs: [A, B, C], now: "2026-05-20T03:00:00.000Z" },
  {
    docs: [
      { ...A, itemPrice: 3500, tagIds: [1000318, 1000400] },
      { ...B, smallImageUrls: ["https://img/b_s1.jpg"], tagIds: [7] },
      { ...C, reviewCount: 3, reviewAverage: 4 },
      itemDoc({ itemCode: "shop-c:9", shopCode: "shop-c", shopName: "C店" }),
      { ...itemDoc({ itemCode: "shop-b:2", shopCode: "shop-b" }), shopName: "B店 改" },
    ],
    now: "2026-05-20T04:00:00.000Z",
  },
];
ROUNDS.push({ docs: ROUNDS[1]?.docs ?? [], now: "2026-05-20T05:00:00.000Z" });

describeEachDialect("rakuten item batch applier", (h) => {
  it("writes the same shops, items, images, tags and snapshots as the item-by-item applier", async () => {
    const one = await openRakutenRuntime(h);
    const batch = await openRakutenRuntime(h);
    for (const [r, round] of ROUNDS.entries()) {
      const m1 = meta(round.now, `r${r}`);
      const m2 = meta(round.now, `r${r}`);
      const inputs = round.docs.map((d, i) => input(d, `h${r}-${i}`));
      await one.db.transaction().execute(async (tx) => {
        for (const it of inputs) await applyItem({ ...it, tx }, m1);
      });
      await batch.db.transaction().execute((tx) => applyItems(tx, inputs, m2));
      // One difference, on purpose: two items of one shop naming it differently in one batch
      // write the shop once (the last name), not twice, so its updated_at may be older.
      expect(withoutShopTimes(await dump(batch.db))).toEqual(withoutShopTimes(await dump(one.db)));
      expect([...m2.shopsWritten]).toEqual([...m1.shopsWritten]);
    }
    const rows = await dump(batch.db);
    expect(rows.items).toHaveLength(5);
    // Round 3 repeats round 2's values: no snapshot added by it.
    expect(rows.market.filter((s) => s.run_id === "r2")).toEqual([]);
    expect(rows.review.filter((s) => s.run_id === "r2")).toEqual([]);
    expect(rows.shops.find((s) => s.rakuten_shop_code === "shop-b")?.shop_name).toBe("B店 改");
  });

  it("one bad item in a batch fails alone; the others are written once", async () => {
    const { db } = await openRakutenRuntime(h);
    const m = meta("2026-05-20T03:00:00.000Z", "r1");
    // No item code: the item row cannot be written (NOT NULL), so the batch throws.
    const bad = { ...itemDoc({ itemCode: "shop-z:1", shopCode: "shop-z" }), itemCode: null };
    const inputs = [
      input(A, "ha"),
      input(bad as unknown as NormalizedItem, "hz"),
      input(C, "hc"),
    ].map((it, i) => (i === 1 ? { ...it, target: "shop-z:1" } : it));
    const out = await db
      .transaction()
      .execute((tx) =>
        applyAll(
          tx,
          inputs,
          { apply: (it) => applyItem(it, m), applyBatch: (t, items) => applyItems(t, items, m) },
          new AbortController().signal,
        ),
      );
    expect(out.applied.map((i) => i.target)).toEqual(["shop-a:1", "shop-b:1"]);
    expect(out.failed.map((f) => f.item.target)).toEqual(["shop-z:1"]);
    const rows = await dump(db);
    expect(rows.items.map((i) => i.rakuten_item_code)).toEqual(["shop-a:1", "shop-b:1"]);
    expect(rows.shops.map((s) => s.rakuten_shop_code)).toEqual(["shop-a", "shop-b"]);
    expect(rows.market.map((s) => s.content_hash)).toEqual(["ha", "hc"]);
    expect(rows.images).toHaveLength(6);
    expect([...m.shopsWritten.keys()].sort()).toEqual(["shop-a", "shop-b"]);
  });

  it("a batch repeating an item code throws (the engine then applies them one by one)", async () => {
    const { db } = await openRakutenRuntime(h);
    const m = meta("2026-05-20T03:00:00.000Z", "r1");
    await expect(
      db
        .transaction()
        .execute((tx) => applyItems(tx, [input(A, "h1"), input({ ...A, itemPrice: 1 }, "h2")], m)),
    ).rejects.toThrow("batch repeats an item code");
    expect(m.shopsWritten.size).toBe(0);
  });
});
