// The application id's rate limit is shared by concurrent runs; dev and prod never share raw objects.
import { expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten: shared rate limit and raw env", (h) => {
  it("rakuten.ranking and rakuten.item at the same time against a fake enforcing the limit: zero 429s", {
    timeout: 60_000,
  }, async () => {
    const t = await openRakutenHarness(h, {
      knobs: { rateLimit: true, requestsPerSecond: 10 },
      settings: { requests_per_second: 10 },
    });
    const codes = t.catalogue.itemCodes(12);
    const started = Date.now();
    const [ranking, item] = await Promise.all([
      t.run("rakuten.ranking", { genre_ids: [0, 100227, 510915, 100283] }),
      t.run("rakuten.item", { item_codes: codes }),
    ]);
    const seconds = (Date.now() - started) / 1000;
    expect(ranking.status, ranking.error ?? "").toBe("succeeded");
    expect(item.status, item.error ?? "").toBe("succeeded");
    expect(t.fake.stats.rateLimited).toBe(0);
    expect(t.fake.stats.calls).toBe(16);
    // 16 calls at 10/s with a burst of 1 take at least 1.5 s.
    expect(seconds).toBeGreaterThanOrEqual(1.4);
  });

  it("a prod run refuses a raw location a dev run claimed, before fetching anything", async () => {
    const t = await openRakutenHarness(h);
    expect((await t.run("rakuten.ranking", { genre_ids: [0] })).status).toBe("succeeded");
    const calls = t.fake.stats.calls;
    const prod = { ...t.rt, config: { ...t.rt.config, env: "prod" as const } };
    const r = await executeRun(prod, {
      jobName: "rakuten-ranking",
      jobType: "rakuten.ranking",
      params: { genre_ids: [0] },
    });
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/dev/);
    expect(r.error).toMatch(/prod/);
    expect(t.fake.stats.calls).toBe(calls);
  });
});
