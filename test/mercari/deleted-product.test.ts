// A product deleted while its messages wait (the cron had just fired, detail checks queued): its
// listCrawl and syncDetail messages complete with nothing to do. They are no failures, so nothing
// is retried, dead-lettered or reported, and `worker --drain` exits 0. A manual crawl of a product
// that does not exist is refused before a queue is opened.
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { NotFoundError } from "../../src/engine/errors.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { enqueueCrawlMessages } from "../../src/pipelines/mercari/stages/list/send-messages.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openWorld } from "./support/world.ts";

describeEachDialect("mercari product deleted while queued", (h) => {
  it("its waiting listCrawl and detail checks complete without a failure", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock });
    const p = await w.products.create(
      { name: "Switch", keyword: "Nintendo Switch", enabled: true },
      isoTimestamp(new Date()),
    );
    const crawled = (await executeCrawl({ services: w.services, outbox: w.queue }, p.id))
      .products[0];
    const checks =
      (crawled?.sold_out_checks.enqueued ?? 0) + (crawled?.seller_checks.enqueued ?? 0);
    await enqueueCrawlMessages(w.queue, [{ type: "listCrawl", productId: p.id }]);
    await w.products.remove(p.id);
    const report = await w.drain({ tick: () => clock.advance(10 * 60_000) });
    expect(report).toEqual({ handled: (checks ?? 0) + 1, failed: 0 });
    const s = (await w.queue.stats()).find((x) => x.queue === MERCARI_QUEUE);
    expect(s?.deadLettered ?? 0).toBe(0);
    expect(w.events.filter((e) => e.jobName === "mercari-crawl queue")).toEqual([]);
  });

  it("a manual crawl of an unknown product is refused before any queue is opened", async () => {
    const w = await openWorld(h);
    let opened = 0;
    const services = {
      ...w.services,
      openQueue: async () => {
        opened++;
        return w.services.openQueue();
      },
    };
    const err = await executeCrawl({ services }, 987_654).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe("product 987654 not found");
    expect(opened).toBe(0);
  });
});
