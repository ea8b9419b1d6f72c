// A re-apply of documents the domain rows already hold writes nothing (updated_at included) on
// both appliers and both dialects; a row that differs from its document is rewritten.
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { applyItem, applyItems } from "../../src/pipelines/rakuten/jobs/item.ts";
import type { ApplyMeta } from "../../src/pipelines/rakuten/jobs/run-rakuten-entity.ts";
import type { NormalizedItem } from "../../src/pipelines/rakuten/normalize/types.ts";
import type { RakutenTables } from "../../src/pipelines/rakuten/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { itemDoc, openRakutenRuntime } from "./support/domain-runtime.ts";

const T1 = "2026-05-20T03:00:00.000Z";
const T2 = "2026-05-20T04:00:00.000Z";

const meta = (now: string): ApplyMeta => ({ runId: now, now: () => now, shopsWritten: new Map() });

const input = (doc: NormalizedItem) => ({
  target: doc.itemCode,
  document: doc,
  contentHash: `h-${doc.itemCode}`,
  rawKey: `raw/${doc.itemCode}`,
  reason: "reapply" as const,
});

const DOCS = [
  itemDoc(),
  itemDoc({ itemCode: "shop-a:2", smallImageUrls: [], mediumImageUrls: [], tagIds: [] }),
  itemDoc({ itemCode: "shop-a:3", reviewAverage: 4.27, itemCaption: null }),
];

type Apply = (db: Kysely<RakutenTables>, docs: NormalizedItem[], now: string) => Promise<void>;
const APPLIERS: Array<[string, Apply]> = [
  [
    "batch",
    (db, docs, now) => db.transaction().execute((tx) => applyItems(tx, docs.map(input), meta(now))),
  ],
  [
    "one by one",
    (db, docs, now) =>
      db.transaction().execute(async (tx) => {
        const m = meta(now);
        for (const doc of docs) await applyItem({ ...input(doc), tx }, m);
      }),
  ],
];

async function items(db: Kysely<RakutenTables>) {
  return db.selectFrom("apl.item").selectAll().orderBy("id").execute();
}

async function images(db: Kysely<RakutenTables>) {
  return db
    .selectFrom("apl.item_image")
    .selectAll()
    .orderBy("item_id")
    .orderBy("size")
    .orderBy("position")
    .execute();
}

describeEachDialect("rakuten item re-apply of unchanged documents", (h) => {
  for (const [name, apply] of APPLIERS) {
    it(`${name}: the same documents again write no item, image or snapshot row`, async () => {
      const { db } = await openRakutenRuntime(h);
      await apply(db, DOCS, T1);
      const before = { items: await items(db), images: await images(db) };
      await apply(db, DOCS, T2);
      expect(await items(db)).toEqual(before.items);
      expect(await images(db)).toEqual(before.images);
      expect(before.items.map((i) => i.updated_at)).toEqual([T1, T1, T1]);
      const snaps = await db.selectFrom("apl.market_snapshot").select("run_id").execute();
      expect(snaps.map((s) => s.run_id)).toEqual([T1, T1, T1]);
    });

    it(`${name}: a row or an image that differs from its document is rewritten`, async () => {
      const { db } = await openRakutenRuntime(h);
      await apply(db, DOCS, T1);
      // What an older applier might have written: another name, one image URL changed.
      await db.updateTable("apl.item").set({ item_name: "old" }).where("id", "=", 1).execute();
      await db
        .updateTable("apl.item_image")
        .set({ url: "https://img/old.jpg" })
        .where("item_id", "=", 3)
        .where("size", "=", "small")
        .where("position", "=", 1)
        .execute();
      await apply(db, DOCS, T2);
      const rows = await items(db);
      expect(rows.map((i) => [i.item_name, i.updated_at])).toEqual([
        [DOCS[0]?.itemName, T2],
        [DOCS[1]?.itemName, T1],
        [DOCS[2]?.itemName, T1],
      ]);
      const urls = (await images(db)).filter((i) => i.item_id === 3).map((i) => i.url);
      expect(urls).toEqual([
        "https://img/a_m1.jpg",
        "https://img/a_s1.jpg",
        "https://img/a_s2.jpg",
      ]);
    });
  }
});
