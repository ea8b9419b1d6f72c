import { expect, it } from "vitest";
import { engineMigrations } from "../../src/engine/migrations/index.ts";
import { SharedRateLimiter } from "../../src/engine/rate-limit/shared-rate-limiter.ts";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { type Database, openDatabase } from "../../src/infra/db/open-database.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { clientFixture } from "./support/client-fixture.ts";

describeEachDialect("rakuten client shared rate limit", (h) => {
  /**
   * Two databases handles on one database on Postgres (as two processes would have); one handle
   * on SQLite, where a second connection in the same thread would block on the first's lock
   * (separate processes are covered by the engine's own test of the limiter).
   */
  async function handles(): Promise<{ dbs: [Database, Database]; close(): Promise<void> }> {
    const target = await h.freshTarget();
    const first = await openDatabase(target);
    await migrateToLatest(first, [engineMigrations]);
    const second = h.dialect === "postgres" ? await openDatabase(target) : first;
    return {
      dbs: [first, second],
      close: async () => {
        await first.close();
        if (second !== first) await second.close();
      },
    };
  }

  it("keeps two concurrent clients of one application id under 1 request/second: no 429", async () => {
    const f = await clientFixture({ knobs: { rateLimit: true, requestsPerSecond: 1 } });
    const { dbs, close } = await handles();
    try {
      const [a, b] = dbs.map((db) =>
        f.makeClient({ requests_per_second: 1 }, { limiter: new SharedRateLimiter(db) }),
      );
      if (!a || !b) throw new Error("clients");
      const codes = f.catalogue.itemCodes(4);
      const started = Date.now();
      const results = await Promise.all([
        a.searchItemByCode(codes[0] as string),
        b.ranking(0),
        a.searchItemByCode(codes[1] as string),
        b.genre(0),
      ]);
      const elapsed = Date.now() - started;
      expect(results.every((r) => r !== undefined)).toBe(true);
      expect(f.fake.stats.rateLimited).toBe(0);
      expect(a.stats.rateLimited + b.stats.rateLimited).toBe(0);
      expect(f.fake.stats.calls).toBe(4);
      // Four calls at one per second: the first at once, the last three seconds later.
      expect(elapsed).toBeGreaterThanOrEqual(2_900);
      const times = f.server.requests.map((r) => r.receivedAt);
      for (let k = 1; k < times.length; k++) {
        expect((times[k] as number) - (times[k - 1] as number)).toBeGreaterThan(700);
      }
    } finally {
      await close();
    }
  }, 20_000);

  it("shows why: paced each on its own, the same two clients are answered 429", async () => {
    const f = await clientFixture({ knobs: { rateLimit: true, requestsPerSecond: 1 } });
    const a = f.makeClient({ requests_per_second: 1, retry_max_attempts: 1 });
    const b = f.makeClient({ requests_per_second: 1, retry_max_attempts: 1 });
    const outcomes = await Promise.allSettled([a.ranking(0), b.ranking(0)]);
    expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(1);
    expect(f.fake.stats.rateLimited).toBe(1);
  });
});
