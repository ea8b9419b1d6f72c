// A changed setting: rows stored under the old keyword or price range say nothing about the new
// search. An empty first page is then no block (the stale rows are inspected away), and a
// search none of the stored rows matches is read like a first crawl, every page.
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openWorld, rowsOf, SWITCH_GROUP, type World } from "./support/world.ts";

async function crawledProduct(w: World) {
  const p = await w.products.create(
    { name: "Switch", keyword: "Nintendo Switch", enabled: true },
    isoTimestamp(new Date()),
  );
  await executeCrawl({ services: w.services, outbox: w.queue }, p.id);
  expect((await rowsOf(w, p.id)).length).toBeGreaterThan(0);
  return p;
}

const crawl = async (w: World, id: number) =>
  (await executeCrawl({ services: w.services, outbox: w.queue }, id)).products[0];

describeEachDialect("mercari setting changes", (h) => {
  it("a price range nothing is listed in empties the product instead of blocking forever", async () => {
    const w = await openWorld(h);
    const p = await crawledProduct(w);
    const stored = (await rowsOf(w, p.id)).length;
    await w.products.update(p.id, { min_price: 9_000_000 }, isoTimestamp(new Date()));
    const summary = await crawl(w, p.id);
    expect(summary).toMatchObject({ first_run: true, found: 0, deleted: stored });
    expect(await rowsOf(w, p.id)).toEqual([]);
  });

  it("an empty first page while stored rows still match is a block: nothing deleted", async () => {
    const w = await openWorld(h);
    const p = await crawledProduct(w);
    const before = await rowsOf(w, p.id);
    w.fake.fake.knobs.block = "empty";
    await expect(crawl(w, p.id)).rejects.toMatchObject({ reason: "empty_first_page" });
    expect(await rowsOf(w, p.id)).toEqual(before);
  });

  it("a new keyword no stored row matches is crawled like a first run, every page", async () => {
    const w = await openWorld(h, {
      groups: [SWITCH_GROUP, { keyword: "Game Boy", count: 260, priceMin: 3000, priceMax: 9000 }],
    });
    const p = await crawledProduct(w);
    await w.products.update(p.id, { keyword: "Game Boy" }, isoTimestamp(new Date()));
    const summary = await crawl(w, p.id);
    // 260 listings at 50 a page: 6 pages, more than pages_per_run (3).
    expect(summary).toMatchObject({ first_run: true, pages: 6, found: 260 });
    const rows = await rowsOf(w, p.id);
    // Every listing the new search returned, whatever its name says.
    const cat = w.fake.fake.catalogue;
    expect(rows.every((r) => cat.get(r.external_id)?.group === "game boy")).toBe(true);
  });
});
