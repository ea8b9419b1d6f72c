// Answers that are not the shape Mercari documents never wipe or skip data: a detail 404 whose
// body is not Mercari's not-found answer fails the check (retried, counted, the row stays), and
// a search whose nextPageToken repeats a token already read fails the crawl naming the token
// instead of reading the same page up to the page cap.
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { failedAnswerCount } from "../../src/pipelines/mercari/client/blocked.ts";
import { MercariPagingError } from "../../src/pipelines/mercari/client/types.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openWorld, rowsOf, SWITCH_GROUP, type World } from "./support/world.ts";

async function product(w: World) {
  return w.products.create(
    { name: "Switch", keyword: "Nintendo Switch", enabled: true },
    isoTimestamp(new Date()),
  );
}

const crawl = (w: World, id: number) => executeCrawl({ services: w.services, outbox: w.queue }, id);

describeEachDialect("mercari odd answers", (h) => {
  it("a detail 404 that is not Mercari's not-found answer deletes nothing", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...SWITCH_GROUP, count: 40 }] });
    const p = await product(w);
    await crawl(w, p.id);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    const before = await rowsOf(w, p.id);
    // Listings gone from the search: the next crawl checks each on its detail page, where a
    // gateway answers 404 {"message":"error"} instead of Mercari.
    const gone = before.filter((r) => r.selling_status === 1).slice(0, 3);
    for (const r of gone) w.fake.fake.catalogue.remove(r.external_id);
    w.fake.fake.knobs.gateway404 = true;
    const counted = failedAnswerCount("detail", "http_404_not_mercari");
    const summary = (await crawl(w, p.id)).products[0];
    expect(summary?.existence_checks.enqueued).toBe(3);
    const report = await w.drain({ tick: () => clock.advance(10 * 60_000) });
    // Each check is tried four times (three retries), then dead-lettered; no row is deleted.
    expect(report.failed).toBe(12);
    expect(failedAnswerCount("detail", "http_404_not_mercari")).toBe(counted + 12);
    const dead = (await w.queue.stats()).find((s) => s.queue === MERCARI_QUEUE)?.deadLettered;
    expect(dead).toBe(3);
    const ids = (rows: Array<{ external_id: string }>) => rows.map((r) => r.external_id);
    expect(ids(await rowsOf(w, p.id))).toEqual(ids(before));
    // Mercari's own not-found answer still deletes them.
    w.fake.fake.knobs.gateway404 = false;
    await crawl(w, p.id);
    await w.drain({ tick: () => clock.advance(10 * 60_000) });
    const left = new Set((await rowsOf(w, p.id)).map((r) => r.external_id));
    expect(gone.filter((r) => left.has(r.external_id))).toEqual([]);
    expect(left.size).toBe(before.length - 3);
  });

  it("a repeated nextPageToken fails the crawl naming the token, after two pages", async () => {
    const w = await openWorld(h);
    const p = await product(w);
    w.fake.fake.knobs.repeatPageToken = true;
    const searches = w.fake.fake.stats.search;
    const err = await crawl(w, p.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MercariPagingError);
    expect((err as Error).message).toMatch(/nextPageToken "v1:1" of page 2 repeats a token/);
    expect(w.fake.fake.stats.search - searches).toBe(2);
    expect(await rowsOf(w, p.id)).toEqual([]);
    // The next crawl, with sane paging, is still a first crawl reading every page.
    w.fake.fake.knobs.repeatPageToken = false;
    const summary = (await crawl(w, p.id)).products[0];
    expect(summary).toMatchObject({ first_run: true, found: w.fake.fake.catalogue.all().length });
  });
});
