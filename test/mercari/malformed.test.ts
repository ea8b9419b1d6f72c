// A malformed answer (a 200 whose JSON is cut off, the fake's `malformedRate` knob) is an error
// that fails the message for a retry: never an empty page, never a deleted listing, never a
// block.
import { expect, it } from "vitest";
import { isoTimestamp } from "../../src/engine/clock/clock.ts";
import { isMercariBlocked } from "../../src/pipelines/mercari/client/types.ts";
import { executeCrawl } from "../../src/pipelines/mercari/jobs/manual-crawl.ts";
import { crawlRepos } from "../../src/pipelines/mercari/repos/crawl-repos.ts";
import { syncForExistence } from "../../src/pipelines/mercari/stages/list/detail-checks.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openWorld, rowsOf, SWITCH_GROUP } from "./support/world.ts";

describeEachDialect("mercari malformed answers", (h) => {
  it("a cut-off page fails the crawl and its detail checks; nothing is deleted", async () => {
    const clock = new ManualClock(new Date());
    const w = await openWorld(h, { clock, groups: [{ ...SWITCH_GROUP, count: 40 }] });
    const p = await w.products.create(
      { name: "Switch", keyword: "Nintendo Switch", enabled: true },
      isoTimestamp(new Date()),
    );
    await executeCrawl({ services: w.services, outbox: w.queue }, p.id);
    await w.drain();
    const before = await rowsOf(w, p.id);
    w.fake.fake.knobs.malformedRate = 1;
    const err = await executeCrawl({ services: w.services, outbox: w.queue }, p.id).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(isMercariBlocked(err)).toBe(false);
    expect(await rowsOf(w, p.id)).toEqual(before);
    // Detail checks of every on-sale row: each fails every attempt, none deletes its row.
    const sent = await syncForExistence(
      { repos: crawlRepos(w.db, clock), outbox: w.queue },
      p.id,
      [],
    );
    expect(sent.enqueued).toBeGreaterThan(0);
    const report = await w.drain({ tick: () => clock.advance(10 * 60_000) });
    expect(report).toEqual({ handled: 0, failed: sent.enqueued * 4 });
    expect(await rowsOf(w, p.id)).toEqual(before);
    expect(w.fake.fake.stats.faults).toBeGreaterThan(0);
  });
});
