// Mercari's real answers through the whole crawl: every listing the search returns for a brand
// is kept whatever its name says (katakana, romaji, diacritics, sub-brands) and stays when its
// seller renames it; rows found under another setting (or priced out of the range) go; a hit
// without a price is counted, never stored, and never reaches cheapest or the trend; a Shops
// hit's seller stays unknown (null, never "0") until its product page names the shop.
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { searchItemJson } from "../../src/pipelines/mercari/fake/responses.ts";
import { BRAND_NAMES } from "../../src/pipelines/mercari/fake/sample-groups.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import {
  detailMessage,
  enqueueCrawlMessages,
} from "../../src/pipelines/mercari/stages/list/send-messages.ts";
import {
  cheapestResults,
  productTrend,
} from "../../src/pipelines/mercari/stages/results/result-views.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openWorld, rowsOf, type World } from "./support/world.ts";

const BRAND = {
  keyword: "comme des garcons",
  count: 160,
  categoryId: 11,
  priceMin: 3000,
  priceMax: 40_000,
  names: BRAND_NAMES,
};

async function brand(w: World, over: Record<string, unknown> = {}) {
  return w.products.create(
    { name: "CdG", keyword: "comme des garcons", enabled: true, ...over },
    isoTimestamp(new Date()),
  );
}

async function crawl(w: World, id: number) {
  return (await executeCrawl({ services: w.services, outbox: w.queue }, id)).products[0]!;
}

const idsOf = (rows: Array<{ external_id: string }>) => rows.map((r) => r.external_id).sort();

describeEachDialect("mercari real answers", (h) => {
  it("keeps every priced listing the brand search returns, katakana and romaji alike", async () => {
    const w = await openWorld(h, { groups: [BRAND] });
    const p = await brand(w);
    const summary = await crawl(w, p.id);
    const listings = w.fake.fake.catalogue.all();
    const priced = listings.filter((l) => !l.noPrice);
    const rows = await rowsOf(w, p.id);
    expect(idsOf(rows)).toEqual(idsOf(priced.map((l) => ({ external_id: l.id }))));
    for (const name of ["コムデギャルソン", "COMME des GARÇONS HOMME", "junya watanabe"]) {
      expect(rows.some((r) => r.name.startsWith(name))).toBe(true);
    }
    // Counted from the pages, not from numFound (an estimate, above what the pages held).
    expect(summary).toMatchObject({
      first_run: true,
      found: listings.length,
      no_price: listings.length - priced.length,
      not_matching: 0,
    });
    expect(summary.no_price).toBeGreaterThan(0);
    expect(summary.num_found_estimate).toBeGreaterThan(summary.found);
    // The first crawl is complete: the next reads pages_per_run pages only.
    expect(await crawl(w, p.id)).toMatchObject({ first_run: false, pages: 3, deleted: 0 });
  });

  it("a renamed listing stays while the search returns it; another setting's rows go", async () => {
    const w = await openWorld(h, { groups: [BRAND] });
    const p = await brand(w);
    await crawl(w, p.id);
    const cat = w.fake.fake.catalogue;
    const newest = cat
      .all()
      .filter((l) => !l.noPrice)
      .sort((a, b) => b.created - a.created)[0]!;
    cat.rename(newest.id, "ジャケット 黒 M");
    const again = await crawl(w, p.id);
    expect(again.deleted).toBe(0);
    const renamed = (await rowsOf(w, p.id)).find((r) => r.external_id === newest.id);
    expect(renamed?.name).toBe("ジャケット 黒 M");
    // A category none of these listings is in: the search is empty, and no stored row was
    // found under this setting, so that is believed and every row goes.
    const stored = (await rowsOf(w, p.id)).length;
    await w.products.update(p.id, { category_id: 5 }, isoTimestamp(new Date()));
    expect(await crawl(w, p.id)).toMatchObject({ first_run: true, found: 0, deleted: stored });
  });

  it("a listing whose price moved outside the range is dropped, as is its stored row", async () => {
    const w = await openWorld(h, { groups: [{ ...BRAND, count: 30 }] });
    const p = await brand(w, { max_price: 30_000 });
    await crawl(w, p.id);
    const [row] = await rowsOf(w, p.id);
    // Mercari's range filter lets a repriced listing through: the hit is out of the range.
    const listing = w.fake.fake.catalogue.get(row!.external_id)!;
    const hit = { ...searchItemJson(listing), price: "45000" };
    w.fake.server.faults.set({
      statusSequence: [{ status: 200, body: { items: [hit], meta: { nextPageToken: "" } } }],
      statusPath: "/v2/entities:search",
    });
    const out = await crawl(w, p.id);
    expect(out).toMatchObject({ not_matching: 1, deleted: 1 });
    expect((await rowsOf(w, p.id)).some((r) => r.external_id === row!.external_id)).toBe(false);
  });

  it("an exclude keyword leaves those listings out and drops the rows found without it", async () => {
    const w = await openWorld(h, { groups: [BRAND] });
    const p = await brand(w);
    await crawl(w, p.id);
    const play = (await rowsOf(w, p.id)).filter((r) => r.name.includes("PLAY"));
    expect(play.length).toBeGreaterThan(0);
    await w.products.update(p.id, { exclude_keyword: "PLAY" }, isoTimestamp(new Date()));
    const out = await crawl(w, p.id);
    expect(out).toMatchObject({ first_run: true, deleted: play.length });
    expect((await rowsOf(w, p.id)).filter((r) => r.name.includes("PLAY"))).toEqual([]);
    expect((await w.products.get(p.id)).exclude_keyword).toBe("PLAY");
  });

  it("a no-price listing is counted, its row dropped, and it never reaches cheapest or the trend", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...BRAND, count: 40 }] });
    const p = await brand(w);
    const cat = w.fake.fake.catalogue;
    const none = cat.list("comme des garcons", { price: 500, shop: false, noPrice: true });
    const first = await crawl(w, p.id);
    expect(first.no_price).toBeGreaterThanOrEqual(1);
    expect((await rowsOf(w, p.id)).some((r) => r.external_id === none.id)).toBe(false);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    // A stored listing whose detail page shows the placeholder, and one whose search hit
    // does: neither keeps a price observation.
    const [a, b] = (await rowsOf(w, p.id)).filter((r) => r.selling_status === 1);
    cat.setNoPrice(a!.external_id);
    await enqueueCrawlMessages(w.queue, [detailMessage(a!)]);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    expect((await rowsOf(w, p.id)).some((r) => r.external_id === a!.external_id)).toBe(false);
    cat.setNoPrice(b!.external_id);
    const later = await crawl(w, p.id);
    expect(later.deleted).toBe(1);
    expect((await rowsOf(w, p.id)).some((r) => r.external_id === b!.external_id)).toBe(false);
    const cheapest = await cheapestResults(w.services, p.id, 100);
    expect(cheapest.items.every((r) => r.price < 9_999_999)).toBe(true);
    expect(cheapest.items.some((r) => r.external_id === none.id)).toBe(false);
    const to = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const trend = await productTrend(w.services, p.id, { to, bucket: "week" });
    expect(trend.buckets.every((b) => b.max < 9_999_999)).toBe(true);
  });

  it("a Shops product on a time sale is stored at the sale price, which the next crawl keeps", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...BRAND, count: 20 }] });
    const p = await brand(w);
    const cat = w.fake.fake.catalogue;
    const sale = cat.list("comme des garcons", {
      price: 62_700,
      shop: true,
      timeSalePrice: 59_570,
    });
    await crawl(w, p.id);
    const priceOf = async () =>
      (await rowsOf(w, p.id)).find((r) => r.external_id === sale.id)?.price;
    // The search hit carries the list price; the product page names the shop and the sale.
    expect(await priceOf()).toBe(62_700);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    expect(await priceOf()).toBe(59_570);
    await crawl(w, p.id);
    expect(await priceOf()).toBe(59_570);
    // Once the sale is over (its end passed), the list price counts again.
    clock.advance(8 * 86_400_000);
    await crawl(w, p.id);
    expect(await priceOf()).toBe(62_700);
  });

  it("a Shops hit's seller is null until its product page names the shop; a crawl keeps it", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...BRAND, count: 60, shopShare: 0.5 }] });
    const p = await brand(w);
    const first = await crawl(w, p.id);
    const shops = (await rowsOf(w, p.id)).filter((r) => r.seller_type === 2);
    expect(shops.length).toBeGreaterThan(0);
    expect(shops.every((r) => r.seller_id === null)).toBe(true);
    expect(first.seller_checks.enqueued + first.sold_out_checks.enqueued).toBeGreaterThan(0);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    const named = (await rowsOf(w, p.id)).filter((r) => r.seller_type === 2);
    for (const r of named) {
      expect(r.seller_id).toBe(w.fake.fake.catalogue.get(r.external_id)?.sellerId);
    }
    // The next crawl's hits say "0" again: the shop found stays, and no check is sent again.
    const later = await crawl(w, p.id);
    expect(later.seller_checks).toEqual({ enqueued: 0, already_waiting: 0 });
    expect((await rowsOf(w, p.id)).filter((r) => r.seller_type === 2)).toEqual(
      expect.arrayContaining(named.map((r) => expect.objectContaining({ seller_id: r.seller_id }))),
    );
    expect((await rowsOf(w, p.id)).some((r) => r.seller_id === "0")).toBe(false);
  });
});
