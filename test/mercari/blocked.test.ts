// A blocked crawler is never mistaken for "no items": an empty first page for a product that
// had results, a 403 or an HTML block page fail the crawl as `blocked`, delete nothing, and
// the message is retried; failed messages are retried with backoff, then dead-lettered and
// reported to the failure webhook.
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { blockedCount } from "../../src/pipelines/mercari/client/blocked.ts";
import { isMercariBlocked } from "../../src/pipelines/mercari/client/types.ts";
import type { BlockMode } from "../../src/pipelines/mercari/fake/mercari-fake.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { enqueueCrawlMessages } from "../../src/pipelines/mercari/stages/list/send-messages.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { enginesFor, openWorld, rowsOf, SWITCH_GROUP, type World } from "./support/world.ts";

async function crawled(w: World) {
  const p = await w.products.create(
    { name: "Switch", keyword: "Nintendo Switch", enabled: true },
    isoTimestamp(new Date()),
  );
  await executeCrawl({ services: w.services, outbox: w.queue }, p.id);
  await w.drain({ tick: () => undefined });
  return p;
}

async function stats(w: World) {
  const s = (await w.queue.stats()).find((x) => x.queue === MERCARI_QUEUE);
  return { queued: s?.queued ?? 0, active: s?.active ?? 0, dead: s?.deadLettered ?? 0 };
}

const REASONS: Record<Exclude<BlockMode, "off">, string> = {
  empty: "empty_first_page",
  forbidden: "http_403",
  html: "html_block_page",
};

describeEachDialect("mercari block handling", (h) => {
  for (const [mode, reason] of Object.entries(REASONS) as Array<[BlockMode, string]>) {
    it(`a blocked crawl (${mode}) deletes nothing, inspects nothing and queues nothing`, async () => {
      const w = await openWorld(h);
      const p = await crawled(w);
      const before = await rowsOf(w, p.id);
      // What a real crawl would now delete: rows under a raised price floor, a vanished listing.
      // (After a setting change no stored row was found by the new search, so an empty first
      // page is believed there: the empty mode keeps the setting.)
      if (mode !== "empty") {
        await w.products.update(p.id, { min_price: 30_000 }, isoTimestamp(new Date()));
      }
      const vanished = before.find((r) => r.selling_status === 1)!;
      w.fake.fake.catalogue.remove(vanished.external_id);
      w.fake.fake.knobs.block = mode;
      const counted = blockedCount();
      const err = await executeCrawl({ services: w.services, outbox: w.queue }, p.id).catch(
        (e) => e,
      );
      expect(isMercariBlocked(err)).toBe(true);
      expect(err.reason).toBe(reason);
      expect(await rowsOf(w, p.id)).toEqual(before);
      expect(await stats(w)).toEqual({ queued: 0, active: 0, dead: 0 });
      expect(blockedCount()).toBe(counted + 1);
    });
  }

  it("an empty first page on a product's first crawl is no block (nothing stored before)", async () => {
    const w = await openWorld(h);
    w.fake.fake.knobs.block = "empty";
    const p = await w.products.create(
      { name: "x", keyword: "Nintendo Switch", enabled: true },
      isoTimestamp(new Date()),
    );
    const out = await executeCrawl({ services: w.services, outbox: w.queue }, p.id);
    expect(out.products[0]).toMatchObject({ first_run: true, found: 0, pages: 1 });
  });

  for (const engine of enginesFor(h)) {
    describe(`queue ${engine}`, () => {
      it("a blocked listCrawl message is retried later and succeeds once the block lifts", {
        timeout: 120_000,
      }, async () => {
        const clock = new ManualClock(new Date());
        const w = await openWorld(h, { engine, clock });
        const p = await crawled(w);
        const before = await rowsOf(w, p.id);
        w.fake.fake.knobs.block = "empty";
        const message = { type: "listCrawl" as const, productId: p.id };
        // pg-boss keeps its own time: a short retry delay there, the real one on embedded.
        const id =
          engine === "pg-boss"
            ? await w.queue.send(MERCARI_QUEUE, message, {
                retryDelaySeconds: 1,
                retryBackoff: false,
              })
            : (await enqueueCrawlMessages(w.queue, [message])).enqueued && "sent";
        expect(id).toBeTruthy();
        let lifted = false;
        // Once the block lifts, the clock moves past the retry's backoff whenever nothing runs.
        const done = w.drain({ timeoutMs: 30_000, tick: () => lifted && clock.advance(60_000) });
        // The first attempt fails as blocked and waits for its retry; nothing changed.
        await expect.poll(() => w.fake.fake.stats.blocked, { timeout: 10_000 }).toBeGreaterThan(0);
        expect(await rowsOf(w, p.id)).toEqual(before);
        w.fake.fake.knobs.block = "off";
        lifted = true;
        const report = await done;
        expect(report.failed).toBeGreaterThanOrEqual(1);
        expect(report.handled).toBeGreaterThanOrEqual(1);
        expect((await stats(w)).dead).toBe(0);
      });

      it.runIf(engine === "embedded")(
        "failing detail messages are retried with backoff, dead-lettered, reported to the failure webhook, and can be sent again",
        { timeout: 120_000 },
        async () => {
          const clock = new ManualClock(new Date());
          const w = await openWorld(h, { engine, clock, groups: [{ ...SWITCH_GROUP, count: 40 }] });
          const p = await w.products.create(
            { name: "Switch", keyword: "Nintendo Switch", enabled: true },
            isoTimestamp(new Date()),
          );
          const first = (await executeCrawl({ services: w.services, outbox: w.queue }, p.id))
            .products[0]!;
          const n = first.sold_out_checks.enqueued + first.seller_checks.enqueued;
          expect(n).toBeGreaterThan(0);
          w.fake.fake.knobs.block = "forbidden";
          // The clock moves past each backoff (30 s, 60 s, 120 s) whenever nothing is active.
          const report = await w.drain({ tick: () => clock.advance(10 * 60_000) });
          expect(report.failed).toBe(n * 4); // the first attempt and 3 retries
          expect((await stats(w)).dead).toBe(n);
          const dead = await w.queue.deadLetters(MERCARI_QUEUE, { limit: 1 });
          expect(dead[0]?.lastError).toContain("blocked");
          expect((await rowsOf(w, p.id)).every((r) => r.sold_out_at === null)).toBe(true);
          const reported = w.events.filter((e) => e.jobName === "mercari-crawl queue");
          expect(reported).toHaveLength(n);
          expect(reported[0]).toMatchObject({
            status: "failed",
            jobType: "mercari-crawl.syncDetail",
          });
          expect(reported[0]?.error).toContain("dead-lettered after 4 attempts");

          w.fake.fake.knobs.block = "off";
          expect(await w.queue.retryDead(MERCARI_QUEUE, "all")).toHaveLength(n);
          expect((await w.drain()).failed).toBe(0);
          const sold = (await rowsOf(w, p.id)).filter((r) => r.selling_status === 2);
          expect(sold).toHaveLength(first.sold_out_checks.enqueued);
          expect(sold.every((r) => r.sold_out_at !== null)).toBe(true);
        },
      );

      it.runIf(engine === "pg-boss")(
        "failing detail messages are retried, dead-lettered, and can be sent again",
        { timeout: 120_000 },
        async () => {
          const w = await openWorld(h, { engine, groups: [{ ...SWITCH_GROUP, count: 40 }] });
          const p = await crawled(w);
          const sold = (await rowsOf(w, p.id)).filter((r) => r.selling_status === 2).slice(0, 3);
          await w.db
            .updateTable("mercari_crawl_results")
            .set({ sold_out_at: null })
            .where(
              "id",
              "in",
              sold.map((r) => r.id),
            )
            .execute();
          w.fake.fake.knobs.block = "forbidden";
          for (const r of sold) {
            await w.queue.send(
              MERCARI_QUEUE,
              { type: "syncDetail", mercariCrawlResultId: r.id },
              { retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false },
            );
          }
          const report = await w.drain({ timeoutMs: 60_000 });
          expect(report.failed).toBe(6);
          expect((await stats(w)).dead).toBe(3);
          const undated = (await rowsOf(w, p.id)).filter(
            (r) => r.selling_status === 2 && r.sold_out_at === null,
          );
          expect(undated.map((r) => r.id).sort()).toEqual(sold.map((r) => r.id).sort());
          w.fake.fake.knobs.block = "off";
          await w.queue.retryDead(MERCARI_QUEUE, "all");
          expect((await w.drain()).failed).toBe(0);
          expect(
            (await rowsOf(w, p.id)).every((r) => r.selling_status === 1 || r.sold_out_at),
          ).toBe(true);
        },
      );
    });
  }
});
