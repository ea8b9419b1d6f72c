// A syncDetail whose row write keeps failing (the write is deferred work, after the fetch) is
// dead-lettered like any failed message and reported to the failure webhook: the report must
// not depend on whether the fetch or the write failed.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openWorld, rowsOf, SWITCH_GROUP, type World } from "./support/world.ts";

/** Makes every UPDATE of a result row fail, as a database refusing writes would. */
async function refuseRowUpdates(w: World, dialect: string): Promise<void> {
  if (dialect === "postgres") {
    await sql`create function tm_refuse() returns trigger language plpgsql as
      $$ begin raise exception 'row write refused'; end $$`.execute(w.db);
    await sql`create trigger tm_refuse before update on mercari_crawl_results
      for each row execute function tm_refuse()`.execute(w.db);
  } else {
    await sql`create trigger tm_refuse before update on mercari_crawl_results
      begin select raise(abort, 'row write refused'); end`.execute(w.db);
  }
}

describeEachDialect("mercari detail write failures", (h) => {
  it("a detail write that keeps failing is dead-lettered and reported to the failure webhook", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...SWITCH_GROUP, count: 30 }] });
    const p = await w.products.create(
      { name: "Switch", keyword: "Nintendo Switch", enabled: true },
      isoTimestamp(new Date()),
    );
    const crawled = (await executeCrawl({ services: w.services, outbox: w.queue }, p.id))
      .products[0];
    // Sold-date checks, and seller checks of the Shops rows (search names no shop).
    const n = (crawled?.sold_out_checks.enqueued ?? 0) + (crawled?.seller_checks.enqueued ?? 0);
    expect(n).toBeGreaterThan(0);
    await refuseRowUpdates(w, h.dialect);
    // The clock moves past each backoff whenever nothing is active.
    const report = await w.drain({ tick: () => clock.advance(10 * 60_000) });
    expect(report.failed).toBe((n ?? 0) * 4);
    const dead = (await w.queue.stats()).find((s) => s.queue === MERCARI_QUEUE)?.deadLettered;
    expect(dead).toBe(n);
    const reported = w.events.filter((e) => e.jobName === "mercari-crawl queue");
    expect(reported).toHaveLength(n ?? 0);
    expect(reported[0]).toMatchObject({ status: "failed", jobType: "mercari-crawl.syncDetail" });
    expect(reported[0]?.error).toMatch(/dead-lettered after 4 attempts: .*row write refused/);
    expect((await rowsOf(w, p.id)).every((r) => r.sold_out_at === null)).toBe(true);
  });
});
