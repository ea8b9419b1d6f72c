// A well-formed answer with a value of the wrong type must not overwrite good data with null.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten jobs: a value of the wrong type", (h) => {
  it("is that target's fetch failure naming the field; its item, tags, snapshots and ledger row stay", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(5);
    const first = await t.run("rakuten.item", { item_codes: codes });
    expect(first.summary).toMatchObject({ changed: 5, failure_count: 0 });
    const domain = async () => ({
      items: await t.db.selectFrom("apl.item").selectAll().orderBy("id").execute(),
      tags: await t.db
        .selectFrom("apl.item_tag")
        .selectAll()
        .orderBy("item_id")
        .orderBy("rakuten_tag_id")
        .execute(),
      market: await t.db.selectFrom("apl.market_snapshot").selectAll().orderBy("id").execute(),
      staging: await t.staging("item"),
    });
    const before = await domain();
    t.blobs.rawPuts.length = 0;

    // The first answer (targets go in key order, one at a time) has itemPrice "要問合せ".
    t.fake.setKnobs({ wrongTypes: 1 });
    const r = await t.run("rakuten.item", {
      item_codes: codes,
      concurrency: 1,
      max_failure_rate: 0.5,
    });
    expect(r.status, r.error ?? "").toBe("succeeded");
    expect(r.summary).toMatchObject({ failure_count: 1, unchanged_skipped: 4, changed: 0 });
    const failure = (
      r.summary.failures as Array<{ target: string; kind: string; message: string }>
    )[0]!;
    expect(failure).toMatchObject({ target: [...codes].sort()[0], kind: "fetch" });
    expect(failure.message).toContain("Items[0].itemPrice: must be a number or numeric text");
    expect(t.fake.stats.wrongTypes).toBe(1);
    expect(t.blobs.rawPuts).toEqual([]);
    expect(await domain()).toEqual(before);

    // The API answering well again: nothing changed, nothing is written.
    const again = await t.run("rakuten.item", { item_codes: codes });
    expect(again.summary).toMatchObject({ unchanged_skipped: 5, failure_count: 0 });
    expect(await domain()).toEqual(before);
  });

  it("in a genre or tag answer fails that target too, writing nothing", async () => {
    const t = await openRakutenHarness(h);
    t.fake.setKnobs({ wrongTypes: 2 });
    const genre = await t.run("rakuten.genre", { genre_ids: [100227] });
    expect(genre.status).toBe("failed");
    expect(JSON.stringify(genre.summary.failures)).toContain("genreLevel");
    const tag = await t.run("rakuten.tag", { tag_ids: [1000317] });
    expect(tag.status).toBe("failed");
    expect(JSON.stringify(tag.summary.failures)).toContain("parentTagId");
    expect(await t.db.selectFrom("apl.genre").selectAll().execute()).toEqual([]);
    expect(await t.db.selectFrom("apl.tag").selectAll().execute()).toEqual([]);
    expect(await t.staging("genre")).toEqual([]);
    expect(await t.staging("tag")).toEqual([]);
  });
});
