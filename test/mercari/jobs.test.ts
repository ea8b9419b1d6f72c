// The crawl flow against the Mercari fake, on SQLite and Postgres, with both queue engines:
// first vs later runs, inspect, existence and sold-date checks, Shops products, 404 deletes.
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { enginesFor, openWorld, rowsOf, type World } from "./support/world.ts";

async function addSwitch(w: World, over: Record<string, unknown> = {}) {
  return w.products.create(
    { name: "Switch", keyword: "Nintendo Switch", enabled: true, ...over },
    isoTimestamp(new Date()),
  );
}

async function crawl(w: World, productId: number) {
  const out = await executeCrawl({ services: w.services, outbox: w.queue }, productId);
  return out.products[0]!;
}

/** Catalogue listings the search returns with a price (each one matches), newest first. */
function matching(w: World) {
  return w.fake.fake.catalogue
    .all()
    .filter((l) => !l.noPrice)
    .sort((a, b) => b.created - a.created);
}

/** What the newest three pages of 50 hold: the second page is short (43), as on Mercari. */
const NEWEST_PAGES = 50 + 43 + 50;

describeEachDialect("mercari crawl flow", (h) => {
  for (const engine of enginesFor(h)) {
    describe(`queue ${engine}`, () => {
      it("first run reads every page, later runs the newest pages_per_run; every priced hit is kept", async () => {
        const w = await openWorld(h, { engine });
        const p = await addSwitch(w);
        const total = w.fake.fake.catalogue.all().length;
        const before = w.fake.fake.stats.search;
        const first = await crawl(w, p.id);
        expect(first.first_run).toBe(true);
        expect(first.found).toBe(total);
        expect(first.pages).toBe(w.fake.fake.stats.search - before);
        const rows = await rowsOf(w, p.id);
        expect(rows.length).toBe(matching(w).length);
        expect(first.inserted).toBe(rows.length);
        expect(first.deleted).toBe(0);
        // Hits without a price are counted, not stored; the search's other hits all match,
        // those whose name lacks the keyword (found through the description) included.
        expect(first.no_price).toBe(total - rows.length);
        expect(first.no_price).toBeGreaterThan(0);
        expect(first.not_matching).toBe(0);
        expect(rows.some((r) => !r.name.includes("Nintendo Switch"))).toBe(true);
        expect(rows.some((r) => r.seller_type === 2)).toBe(true); // Shops products
        expect(rows.every((r) => r.sold_out_at === null)).toBe(true);
        const sold = rows.filter((r) => r.selling_status === 2).length;
        expect(first.sold_out_checks.enqueued).toBe(sold);
        expect(first.existence_checks.enqueued).toBe(0);
        // Shops hits name no shop: the on-sale ones get a detail check for it (the sold ones
        // have theirs already).
        const shopsOnSale = rows.filter((r) => r.seller_type === 2 && r.selling_status === 1);
        expect(first.seller_checks.enqueued).toBe(shopsOnSale.length);

        const searches = w.fake.fake.stats.search;
        const later = await crawl(w, p.id);
        expect(later.first_run).toBe(false);
        expect(later.pages).toBe(3);
        expect(w.fake.fake.stats.search - searches).toBe(3);
        expect(later.found).toBe(NEWEST_PAGES);
        expect(later.inserted).toBe(0);
        // Sold rows still waiting are not queued twice (singleton key).
        expect(later.sold_out_checks).toEqual({ enqueued: 0, already_waiting: sold });
        expect((await rowsOf(w, p.id)).length).toBe(rows.length);
      });

      it("detail checks date sold rows, sync on-sale ones, delete vanished ones (items and Shops products)", async () => {
        const w = await openWorld(h, { engine });
        const p = await addSwitch(w);
        await crawl(w, p.id);
        const cat = w.fake.fake.catalogue;
        // Old on-sale listings (beyond the newest 150): one of each kind vanishes, one sells,
        // one changes price; a sold one vanishes before its detail check.
        const oldOnSale = matching(w)
          .slice(NEWEST_PAGES)
          .filter((l) => l.status === "on_sale");
        const goneItem = oldOnSale.find((l) => !l.shop)!;
        const goneShop = oldOnSale.find((l) => l.shop)!;
        const soldNow = oldOnSale.find((l) => !l.shop && l !== goneItem)!;
        const repriced = oldOnSale.find((l) => l.shop && l !== goneShop)!;
        const soldGone = matching(w).find((l) => l.status !== "on_sale")!;
        expect([goneItem, goneShop, soldNow, repriced, soldGone].every(Boolean)).toBe(true);
        cat.remove(soldGone.id);
        const firstDrain = await w.drain();
        expect(firstDrain.failed).toBe(0);
        let rows = await rowsOf(w, p.id);
        expect(rows.find((r) => r.external_id === soldGone.id)).toBeUndefined();
        for (const r of rows.filter((x) => x.selling_status === 2)) {
          const l = cat.get(r.external_id)!;
          expect(Date.parse(r.sold_out_at!)).toBe(l.updated * 1000);
        }

        cat.remove(goneItem.id);
        cat.remove(goneShop.id);
        cat.sell(soldNow.id, "trading");
        cat.setPrice(repriced.id, repriced.price - 1000);
        const later = await crawl(w, p.id);
        const newest = new Set(
          cat
            .all()
            .sort((x, y) => y.created - x.created)
            .slice(0, NEWEST_PAGES)
            .map((l) => l.id),
        );
        const onSaleOld = rows.filter((r) => r.selling_status === 1 && !newest.has(r.external_id));
        expect(later.existence_checks.enqueued).toBe(onSaleOld.length);
        expect((await w.drain()).failed).toBe(0);
        rows = await rowsOf(w, p.id);
        const byId = new Map(rows.map((r) => [r.external_id, r]));
        expect(byId.has(goneItem.id)).toBe(false);
        expect(byId.has(goneShop.id)).toBe(false);
        expect(byId.get(soldNow.id)).toMatchObject({ selling_status: 2 });
        expect(Date.parse(byId.get(soldNow.id)!.sold_out_at!)).toBe(
          cat.get(soldNow.id)!.updated * 1000,
        );
        expect(byId.get(repriced.id)).toMatchObject({
          price: repriced.price,
          selling_status: 1,
          seller_type: 2,
        });
      });

      it("the cron job queues one listCrawl per enabled product in one batch, never twice", async () => {
        const w = await openWorld(h, { engine });
        const a = await addSwitch(w);
        const b = await addSwitch(w, { name: "Switch 2", enabled: true });
        await addSwitch(w, { name: "off", enabled: false });
        await new JobService(w.runtime.db, w.runtime.registry, w.runtime.clock).add({
          name: "hourly",
          type: "mercari.crawl",
          params: {},
          schedule: "0 * * * *",
          timezone: "UTC",
          enabled: true,
        });
        const run = () =>
          executeRun(w.runtime, { jobName: "hourly", jobType: "mercari.crawl", params: {} });
        const first = await run();
        expect(first.status).toBe("succeeded");
        expect(first.summary).toMatchObject({ products: 2, enqueued: 2, already_waiting: 0 });
        expect((await run()).summary).toMatchObject({ enqueued: 0, already_waiting: 2 });
        await w.drain();
        const counts = await Promise.all([rowsOf(w, a.id), rowsOf(w, b.id)]);
        expect(counts.every((rows) => rows.length > 0)).toBe(true);
        const stats = (await w.queue.stats()).find((s) => s.queue === MERCARI_QUEUE);
        expect(stats?.deadLettered ?? 0).toBe(0);
      });

      it("inspect deletes rows a changed setting no longer matches (price range, keyword)", async () => {
        const w = await openWorld(h, { engine });
        const p = await addSwitch(w);
        await crawl(w, p.id);
        const rows = await rowsOf(w, p.id);
        const prices = rows.map((r) => r.price).sort((x, y) => x - y);
        const floor = prices[Math.floor(prices.length / 2)]!;
        await w.products.update(p.id, { min_price: floor }, isoTimestamp(new Date()));
        const out = await crawl(w, p.id);
        const left = await rowsOf(w, p.id);
        expect(out.deleted).toBe(rows.filter((r) => r.price < floor).length);
        expect(left.every((r) => r.price >= floor)).toBe(true);
        // A new keyword is a new search, read in full: what it returns stays.
        await w.products.update(
          p.id,
          { keyword: "ＳＷＩＴＣＨ  nintendo" },
          isoTimestamp(new Date()),
        );
        expect(await crawl(w, p.id)).toMatchObject({ first_run: true, deleted: 0 });
      });
    });
  }
});

describeEachDialect("mercari crawl paging", (h) => {
  it("follows nextPageToken through short pages, up to first_run_max_pages", async () => {
    const w = await openWorld(h, {
      yaml: "pipelines:\n  mercari:\n    requests_per_second: 0\n    page_size: 50\n    retry_max_attempts: 1\n    first_run_max_pages: 4\n",
    });
    w.fake.fake.knobs.shortPages = true;
    const p = await addSwitch(w);
    const first = await crawl(w, p.id);
    expect(first.pages).toBe(4);
    // Page 2 is short (43 items) but not the last: the crawl went on to pages 3 and 4.
    expect(first.found).toBe(50 + 43 + 50 + 50);
    const w2 = await openWorld(h);
    w2.fake.fake.knobs.shortPages = true;
    const p2 = await addSwitch(w2);
    const all = await crawl(w2, p2.id);
    expect(all.found).toBe(w2.fake.fake.catalogue.all().length);
  });
});

describeEachDialect("mercari crawl fencing", (h) => {
  it("a second crawl of the same product is refused; a crawl that lost its lease writes nothing", async () => {
    const w = await openWorld(h);
    const p = await addSwitch(w);
    w.fake.fake.knobs.latencyMs = 150;
    const key = `mercari.crawl:product:${p.id}`;
    const running = crawl(w, p.id).catch((e: unknown) => e);
    await expect.poll(() => w.fake.fake.stats.search, { timeout: 10_000 }).toBeGreaterThan(0);
    const second = await crawl(w, p.id).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toContain("already running");
    // Another holder takes the product's lease over while the first crawl is still paging.
    const held = await w.runtime.leases.get(key);
    await w.runtime.leases.release(key, held!.holder);
    const intruder = await w.runtime.leases.tryAcquire(key, "intruder", 60_000);
    expect(intruder).toBeDefined();
    const outcome = await running;
    expect((outcome as Error).name).toBe("LeaseLostError");
    expect(await rowsOf(w, p.id)).toEqual([]);
    const stats = (await w.queue.stats()).find((s) => s.queue === MERCARI_QUEUE);
    expect(stats?.queued ?? 0).toBe(0);
    await w.runtime.leases.release(key, "intruder");
  });
});
