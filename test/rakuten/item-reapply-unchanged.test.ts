// A re-apply of documents the domain rows already hold writes nothing (updated_at included) on
// both appliers and both dialects; rows an older applier wrote (another applied_sig, or none)
// are compared in full and rewritten where they differ from the document.
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { applyItem, applyItems } from "../../src/pipelines/rakuten/jobs/apply/apply-item.ts";
import type { ApplyMeta } from "../../src/pipelines/rakuten/jobs/apply/apply-meta.ts";
import { wantedImages } from "../../src/pipelines/rakuten/repos/item-values.ts";
import type { NormalizedItem } from "../../src/pipelines/rakuten/stages/normalize/types.ts";
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

const apply0 = APPLIERS[0]?.[1] as Apply;

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
      // What an older applier might have written: another name, one image URL changed, and
      // another digest of its writes (or none, before applied_sig existed).
      await db
        .updateTable("apl.item")
        .set({ item_name: "old", applied_sig: null })
        .where("id", "=", 1)
        .execute();
      await db.updateTable("apl.item").set({ applied_sig: "v0" }).where("id", "=", 3).execute();
      await db
        .updateTable("apl.item_image")
        .set({ url: "https://img/old.jpg" })
        .where("item_id", "=", 3)
        .where("size", "=", "small")
        .where("position", "=", 1)
        .execute();
      await apply(db, DOCS, T2);
      const rows = await items(db);
      // Item 3's row is written for its new digest (updated_at included); item 2 is untouched.
      expect(rows.map((i) => [i.item_name, i.updated_at])).toEqual([
        [DOCS[0]?.itemName, T2],
        [DOCS[1]?.itemName, T1],
        [DOCS[2]?.itemName, T2],
      ]);
      expect(new Set(rows.map((i) => i.applied_sig)).size).toBe(3);
      expect(rows.every((i) => i.applied_sig?.length === 64)).toBe(true);
      const urls = (await images(db)).filter((i) => i.item_id === 3).map((i) => i.url);
      expect(urls).toEqual([
        "https://img/a_m1.jpg",
        "https://img/a_s1.jpg",
        "https://img/a_s2.jpg",
      ]);
    });
  }

  it("batch: an item whose applied_sig is its document's is not read again until it is cleared", async () => {
    const { db } = await openRakutenRuntime(h);
    await apply0(db, DOCS, T1);
    // A hand edit behind the applier's back keeps the digest: the batch applier trusts it.
    await db.deleteFrom("apl.item_image").where("item_id", "=", 1).execute();
    await apply0(db, DOCS, T2);
    expect((await images(db)).filter((i) => i.item_id === 1)).toEqual([]);
    // Clearing the digest makes the next apply compare the item in full and restore its images.
    await db.updateTable("apl.item").set({ applied_sig: null }).where("id", "=", 1).execute();
    await apply0(db, DOCS, T2);
    const urls = (await images(db)).filter((i) => i.item_id === 1).map((i) => i.url);
    expect(urls).toHaveLength(wantedImages(DOCS[0] as NormalizedItem).length);
    expect(urls.length).toBeGreaterThan(0);
  });
});
