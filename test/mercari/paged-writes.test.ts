// A long search is written page by page while it pages (issue 11, benchmark): sold-date checks
// start before the search ends, an interrupted first crawl is a first crawl again next time,
// and writes after a lost lease change nothing.
import type { Kysely } from "kysely";
import { CursorStore, type CursorTables } from "tidemark/kit";
import { expect, it } from "vitest";
import {
  MercariBlockedError,
  type MercariClient,
} from "../../src/pipelines/mercari/client/types.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { firstCrawlKey } from "../../src/pipelines/mercari/repos/first-crawl-marks.ts";
import { crawlContext } from "../../src/pipelines/mercari/stages/list/crawl-context.ts";
import { runListPhase } from "../../src/pipelines/mercari/stages/list/list-phase.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openWorld, rowsOf, type World } from "./support/world.ts";

async function addSwitch(w: World) {
  return w.products.create(
    { name: "Switch", keyword: "Nintendo Switch", enabled: true },
    new Date().toISOString(),
  );
}

/**
 * The configured client, with `beforePage(n)` run before search page n (1-based) is read;
 * `pages` collects the ids each page returned.
 */
function hookedClient(
  w: World,
  beforePage: (n: number) => Promise<void>,
  pages: string[][] = [],
): MercariClient {
  const real = crawlContext(w.services, w.queue).client;
  let n = 0;
  return {
    search: async (query, signal) => {
      await beforePage(++n);
      const page = await real.search(query, signal);
      pages.push(page.items.map((i) => i.id));
      return page;
    },
    getItem: (id, signal) => real.getItem(id, signal),
    getShopsProduct: (id, signal) => real.getShopsProduct(id, signal),
    getDetail: (id, signal) => real.getDetail(id, signal),
  };
}

async function queued(w: World): Promise<number> {
  const stats = (await w.queue.stats()).find((s) => s.queue === MERCARI_QUEUE);
  return stats?.queued ?? 0;
}

function marker(w: World, productId: number) {
  const store = new CursorStore(w.db as unknown as Kysely<CursorTables>, w.runtime.clock);
  return store.get(firstCrawlKey(productId));
}

describeEachDialect("mercari page-by-page writes", (h) => {
  it("writes while paging and queues sold-date checks as it goes, with the same outcome", async () => {
    const w = await openWorld(h);
    const p = await addSwitch(w);
    let rowsBeforeLastPage = -1;
    let checksBeforeLastPage = -1;
    const client = hookedClient(w, async (n) => {
      if (n !== 7) return;
      rowsBeforeLastPage = (await rowsOf(w, p.id)).length;
      checksBeforeLastPage = await queued(w);
    });
    const summary = await runListPhase(
      crawlContext(w.services, w.queue, client),
      p.id,
      undefined,
      20,
    );
    // 300 listings at 50 a page, every third page from the second 7 short: 7 pages.
    expect(summary.pages).toBe(7);
    expect(rowsBeforeLastPage).toBeGreaterThan(0);
    expect(checksBeforeLastPage).toBeGreaterThan(0);
    const rows = await rowsOf(w, p.id);
    expect(summary.inserted).toBe(rows.length);
    const sold = rows.filter((r) => r.selling_status === 2).length;
    expect(summary.sold_out_checks).toEqual({ enqueued: sold, already_waiting: 0 });
    // And the Shops rows, whose shop only their product page names.
    expect(await queued(w)).toBe(sold + summary.seller_checks.enqueued);
    expect(await marker(w, p.id)).toBeUndefined();
  });

  it("a first crawl interrupted part-way is a first crawl again, reading every page", async () => {
    const w = await openWorld(h);
    const p = await addSwitch(w);
    const client = hookedClient(w, async (n) => {
      if (n === 4) throw new MercariBlockedError("http_403", "test block on page 4");
    });
    const err = await runListPhase(crawlContext(w.services, w.queue, client), p.id, undefined, 20)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MercariBlockedError);
    const partial = (await rowsOf(w, p.id)).length;
    expect(partial).toBeGreaterThan(0);
    expect(await marker(w, p.id)).toBeDefined();

    const again = await runListPhase(crawlContext(w.services, w.queue), p.id);
    expect(again).toMatchObject({ first_run: true, pages: 7 });
    expect(again.inserted).toBe((await rowsOf(w, p.id)).length - partial);
    expect(await marker(w, p.id)).toBeUndefined();
    const later = await runListPhase(crawlContext(w.services, w.queue), p.id);
    expect(later).toMatchObject({ first_run: false, pages: 3 });
  });

  it("after the lease is lost part-way, no further page is written or checked", async () => {
    const w = await openWorld(h);
    const p = await addSwitch(w);
    const key = `mercari.crawl:product:${p.id}`;
    const pages: string[][] = [];
    const client = hookedClient(
      w,
      async (n) => {
        if (n !== 4) return;
        // Pages 1-3 are read (and partly written); another holder takes the product over.
        const held = await w.runtime.leases.get(key);
        await w.runtime.leases.release(key, held!.holder);
        expect(await w.runtime.leases.tryAcquire(key, "intruder", 60_000)).toBeDefined();
      },
      pages,
    );
    const err = await runListPhase(crawlContext(w.services, w.queue, client), p.id, undefined, 20)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe("LeaseLostError");
    const beforeLoss = new Set(pages.slice(0, 3).flat());
    const rows = await rowsOf(w, p.id);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => !beforeLoss.has(r.external_id))).toEqual([]);
    // Only rows written before the loss got a sold-date check.
    expect(await queued(w)).toBeLessThanOrEqual(rows.filter((r) => r.selling_status === 2).length);
    expect(await marker(w, p.id)).toBeDefined();
    await w.runtime.leases.release(key, "intruder");
  });
});
