// The Rakuten domain tables and repositories on both dialects: item apply, is_active, policy.
import { expect, it } from "vitest";
import { applyItem } from "../../src/pipelines/rakuten/jobs/apply/apply-item.ts";
import type { ApplyMeta } from "../../src/pipelines/rakuten/jobs/apply/apply-meta.ts";
import { RakutenPolicy } from "../../src/pipelines/rakuten/repos/policy.ts";
import { RankRepo } from "../../src/pipelines/rakuten/repos/rank-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { itemDoc, openRakutenRuntime } from "./support/domain-runtime.ts";
import { seedIsActive } from "./support/seed-is-active.ts";

const meta = (now: string, runId = "r1"): ApplyMeta => ({
  runId,
  now: () => now,
  shopsWritten: new Map(),
});

describeEachDialect("rakuten domain repos", (h) => {
  it("creates the thirteen tables, and the item applier writes item, shop, images, tags, snapshots", async () => {
    const { db } = await openRakutenRuntime(h);
    const doc = itemDoc();
    await db.transaction().execute((tx) =>
      applyItem(
        {
          tx,
          target: doc.itemCode,
          document: doc,
          contentHash: "h1",
          rawKey: "k",
          reason: "changed",
        },
        meta("2026-05-20T03:00:00.000Z"),
      ),
    );
    const item = await db.selectFrom("apl.item").selectAll().executeTakeFirstOrThrow();
    expect(item).toMatchObject({
      rakuten_item_code: "shop-a:1",
      item_price: 3980,
      review_average: 4.5,
      rakuten_shop_code: "shop-a",
      rakuten_genre_id: 100371,
      is_active: 0,
      content_hash: "h1",
    });
    const images = await db
      .selectFrom("apl.item_image")
      .selectAll()
      .orderBy("size", "desc")
      .orderBy("position")
      .execute();
    expect(images.map((i) => [i.size, i.position, i.url])).toEqual([
      ["small", 0, "https://img/a_s1.jpg"],
      ["small", 1, "https://img/a_s2.jpg"],
      ["medium", 0, "https://img/a_m1.jpg"],
    ]);
    const tags = await db
      .selectFrom("apl.item_tag")
      .select("rakuten_tag_id")
      .orderBy("rakuten_tag_id")
      .execute();
    expect(tags.map((t) => t.rakuten_tag_id)).toEqual([1000317, 1000318]);
    expect(await db.selectFrom("apl.shop").selectAll().execute()).toMatchObject([
      { rakuten_shop_code: "shop-a", shop_name: "タオル本舗" },
    ]);

    // A price change and one tag dropped: item updated, tags synced, one market snapshot more,
    // no review snapshot (reviews unchanged), the shop untouched.
    const doc2 = itemDoc({ itemPrice: 3500, tagIds: [1000318] });
    await db.transaction().execute((tx) =>
      applyItem(
        {
          tx,
          target: doc2.itemCode,
          document: doc2,
          contentHash: "h2",
          rawKey: "k",
          reason: "changed",
        },
        meta("2026-05-20T04:00:00.000Z", "r2"),
      ),
    );
    expect(
      (await db.selectFrom("apl.item").select("item_price").executeTakeFirstOrThrow()).item_price,
    ).toBe(3500);
    const tags2 = await db.selectFrom("apl.item_tag").select("rakuten_tag_id").execute();
    expect(tags2.map((t) => t.rakuten_tag_id)).toEqual([1000318]);
    const market = await db.selectFrom("apl.market_snapshot").selectAll().orderBy("id").execute();
    expect(market.map((m) => [m.item_price, m.run_id])).toEqual([
      [3980, "r1"],
      [3500, "r2"],
    ]);
    expect(await db.selectFrom("apl.review_snapshot").selectAll().execute()).toHaveLength(1);
    const shop = await db.selectFrom("apl.shop").selectAll().executeTakeFirstOrThrow();
    expect(shop.updated_at).toBe("2026-05-20T03:00:00.000Z");

    // The same document applied again (a re-apply) adds no snapshot.
    await db.transaction().execute((tx) =>
      applyItem(
        {
          tx,
          target: doc2.itemCode,
          document: doc2,
          contentHash: "h2",
          rawKey: "k",
          reason: "reapply",
        },
        meta("2026-05-20T05:00:00.000Z", "r3"),
      ),
    );
    expect(await db.selectFrom("apl.market_snapshot").selectAll().execute()).toHaveLength(2);
    expect(await db.selectFrom("apl.review_snapshot").selectAll().execute()).toHaveLength(1);
  });

  it("is-active: only rows whose value changes are written, updated_at included", async () => {
    const { db, run, clock } = await openRakutenRuntime(h);
    const at = "2026-05-20T01:00:00.000Z";
    const item = (code: string, genre: number, shop: string, active: number) => ({
      code,
      genre,
      shop,
      active,
    });
    await seedIsActive(db, at, [
      item("s1:ok-already", 1, "s1", 1), // stays active: untouched
      item("s1:becomes", 1, "s1", 0), // genre and shop known: activated
      item("s1:no-genre", 2, "s1", 1), // genre unknown: deactivated
      item("s2:no-shop", 1, "s2", 0), // shop unknown: stays inactive, untouched
    ]);
    clock.set("2026-05-20T03:30:00.000Z");
    const dry = await run("rakuten.is-active", {}, { dryRun: true });
    expect(dry.summary).toMatchObject({ would_activate: 1, would_deactivate: 1 });
    const r = await run("rakuten.is-active");
    expect(r.status).toBe("succeeded");
    expect(r.summary).toMatchObject({ updated: 2, activated: 1, deactivated: 1 });
    const rows = await db
      .selectFrom("apl.item")
      .select(["rakuten_item_code", "is_active", "updated_at"])
      .orderBy("rakuten_item_code")
      .execute();
    expect(rows).toEqual([
      { rakuten_item_code: "s1:becomes", is_active: 1, updated_at: "2026-05-20T03:30:00.000Z" },
      { rakuten_item_code: "s1:no-genre", is_active: 0, updated_at: "2026-05-20T03:30:00.000Z" },
      { rakuten_item_code: "s1:ok-already", is_active: 1, updated_at: at },
      { rakuten_item_code: "s2:no-shop", is_active: 0, updated_at: at },
    ]);
    clock.set("2026-05-20T04:00:00.000Z");
    const again = await run("rakuten.is-active");
    expect(again.summary).toMatchObject({ updated: 0 });
    const after = await db.selectFrom("apl.item").select("updated_at").execute();
    expect(after.every((x) => x.updated_at !== "2026-05-20T04:00:00.000Z")).toBe(true);
  });

  it("policy: genres and tags of the items saved today only (staging joined to item and item_tag)", async () => {
    const { db } = await openRakutenRuntime(h);
    const at = "2026-05-19T10:00:00.000Z";
    const row = (code: string, genre: number) => ({
      rakuten_item_code: code,
      item_name: code,
      rakuten_genre_id: genre,
      rakuten_shop_code: "s",
      content_hash: "h",
      created_at: at,
      updated_at: at,
    });
    const ids = await db
      .insertInto("apl.item")
      .values([row("s:today", 10), row("s:yesterday", 20), row("s:today2", 30)])
      .returning(["id", "rakuten_item_code"])
      .execute();
    const id = (code: string) => Number(ids.find((r) => r.rakuten_item_code === code)?.id);
    await db
      .insertInto("apl.item_tag")
      .values([
        { item_id: id("s:today"), rakuten_tag_id: 5, created_at: at },
        { item_id: id("s:yesterday"), rakuten_tag_id: 6, created_at: at },
        { item_id: id("s:today2"), rakuten_tag_id: 7, created_at: at },
      ])
      .execute();
    const staging = (code: string, savedAt: string) => ({
      source: "rakuten",
      entity: "item",
      source_id: code,
      content_hash: "h",
      s3_key: "k",
      etag: null,
      saved_at: savedAt,
      created_at: savedAt,
      updated_at: savedAt,
      applied_at: null,
      applied_version: null,
    });
    await db
      .insertInto("apl.staging")
      .values([
        staging("s:today", "2026-05-20T00:00:00.000Z"),
        staging("s:yesterday", "2026-05-19T23:59:59.999Z"),
        staging("s:today2", "2026-05-20T02:00:00.000Z"),
      ])
      .execute();
    const policy = new RakutenPolicy(db);
    const dayStart = new Date("2026-05-20T00:00:00.000Z");
    expect(await policy.genreIdsFromTodayItems(dayStart)).toEqual(["10", "30"]);
    expect(await policy.genreIdsFromTodayItems(dayStart, [30, 1])).toEqual(["1", "10", "30"]);
    expect(await policy.tagIdsFromTodayItems(dayStart)).toEqual(["5", "7"]);
  });

  it("rank snapshots: the current ranking of each genre gives the item targets", async () => {
    const { db } = await openRakutenRuntime(h);
    const repo = new RankRepo(db);
    const entry = (rank: number, itemCode: string) => ({
      rank,
      itemCode,
      itemName: null,
      itemPrice: null,
      reviewCount: null,
      reviewAverage: null,
      shopCode: null,
      shopName: null,
      genreId: null,
    });
    const snap = (runId: string, genreId: number, codes: string[], hash: string, at: string) =>
      repo.insertRankSnapshot({
        runId,
        ranking: { genreId, title: null, items: codes.map((c, i) => entry(i + 1, c)) },
        contentHash: hash,
        collectedAt: at,
      });
    expect(await snap("r1", 1, ["a:1", "a:2"], "h1", "2026-05-19T00:00:00.000Z")).toBe(2);
    expect(await snap("r1", 2, ["b:1"], "h2", "2026-05-19T00:00:00.000Z")).toBe(1);
    expect(await snap("r2", 1, ["a:3", "a:1"], "h3", "2026-05-20T00:00:00.000Z")).toBe(2);
    expect(await snap("r3", 1, ["a:3", "a:1"], "h3", "2026-05-20T01:00:00.000Z")).toBe(0);
    expect(await repo.currentItemCodes()).toEqual(["a:3", "a:1", "b:1"]);
    expect(await repo.currentItemCodes([2])).toEqual(["b:1"]);
    expect(await new RakutenPolicy(db).itemCodes([1], ["b:1", "a:1"])).toEqual([
      "a:3",
      "a:1",
      "b:1",
    ]);
  });
});
