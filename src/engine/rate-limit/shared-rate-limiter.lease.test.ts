import type { KyselyPlugin } from "kysely";
import { expect, it } from "vitest";
import { migrateToLatest } from "../../infra/db/migrator.ts";
import { type Database, openDatabase } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { engineMigrations } from "../migrations/index.ts";
import { SharedRateLimiter } from "./shared-rate-limiter.ts";
import { leaseSize } from "./token-lease.ts";

/** The database handle, counting the limiter's transactions (each starts with one insert). */
function counting(db: Database): { db: Database; transactions: () => number } {
  let inserts = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (args.node.kind === "InsertQueryNode") inserts++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: { ...db, kysely: db.kysely.withPlugin(plugin) }, transactions: () => inserts };
}

/** Most grants beyond `burst + rate × elapsed` in any window of the (sorted) grant times. */
function worstExcess(times: number[], rate: number, burst: number): number {
  let worst = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < times.length; i++) {
    for (let j = i; j < times.length; j++) {
      worst = Math.max(worst, j - i + 1 - (burst + (rate * (times[j]! - times[i]!)) / 1000));
    }
  }
  return worst;
}

/** A small seeded generator: the schedules below are random but the same on every run. */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

describeEachDialect("shared rate limiter leases", (h) => {
  async function fresh() {
    const raw = await h.freshDatabase();
    await migrateToLatest(raw, [engineMigrations]);
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const { db, transactions } = counting(raw);
    const limiter = new SharedRateLimiter(db, {
      clock,
      sleep: async (ms) => clock.advance(ms),
    });
    return { clock, limiter, transactions };
  }

  it("sizes leases to 50 ms of the rate, one token below 40/s", () => {
    expect([1, 10, 39, 40, 200, 1_000].map(leaseSize)).toEqual([1, 1, 1, 2, 10, 50]);
  });

  it("at 1 request/second costs one transaction per token, as a plain bucket", async () => {
    const { limiter, transactions } = await fresh();
    for (let i = 0; i < 5; i++) await limiter.acquire("api:slow", { ratePerSecond: 1, burst: 1 });
    // One take per token, plus one that found the bucket empty for each of the four waits.
    expect(transactions()).toBe(9);
  });

  it("at a high rate, N acquisitions cost about N / lease size transactions", async () => {
    const { clock, limiter, transactions } = await fresh();
    const limit = { ratePerSecond: 1_000, burst: 100 };
    const grants: number[] = [];
    // Callers asking at the rate, one every millisecond.
    for (let i = 0; i < 1_000; i++) {
      await limiter.acquire("api:fast", limit);
      grants.push(clock.now().getTime());
      clock.advance(1);
    }
    expect(transactions()).toBe(1_000 / leaseSize(limit.ratePerSecond));
    expect(worstExcess(grants, limit.ratePerSecond, limit.burst)).toBeLessThanOrEqual(0);
  });

  it("serves callers arriving together from one transaction", async () => {
    const { limiter, transactions } = await fresh();
    const limit = { ratePerSecond: 1_000, burst: 100 };
    const waits = await Promise.all(
      Array.from({ length: 50 }, () => limiter.tryAcquire("api:k", limit)),
    );
    expect(waits.every((w) => w === 0)).toBe(true);
    expect(transactions()).toBe(1);
  });

  it("tells callers the wait for the next token without a transaction each", async () => {
    const { clock, limiter, transactions } = await fresh();
    const limit = { ratePerSecond: 1_000, burst: 100 };
    for (let i = 0; i < 100; i++) expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    expect(transactions()).toBe(2);
    expect(await limiter.tryAcquire("api:k", limit)).toBe(1);
    expect(await limiter.tryAcquire("api:k", limit)).toBe(1);
    expect(transactions()).toBe(3);
    clock.advance(1);
    expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    expect(transactions()).toBe(4);
  });

  it("drops spare tokens as the bucket refills and after 50 ms", async () => {
    const { clock, limiter, transactions } = await fresh();
    const limit = { ratePerSecond: 1_000, burst: 100 };
    expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    // 50 taken, 49 spare, 50 left in the bucket. 10 ms later the bucket could hold 60, so only
    // 40 spares may remain (bucket + spares never above the burst).
    clock.advance(10);
    for (let i = 0; i < 40; i++) expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    expect(transactions()).toBe(1);
    expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    expect(transactions()).toBe(2);
    // The new lease's spares are gone 50 ms later even though the headroom would allow them.
    clock.advance(50);
    expect(await limiter.tryAcquire("api:k", limit)).toBe(0);
    expect(transactions()).toBe(3);
  });

  it("keeps two limiters sharing a key within burst + rate × elapsed, idle spells included", async () => {
    const target = await h.freshTarget();
    const dbs = [await openDatabase(target)];
    // Postgres: two connections, as two processes would have; SQLite: one (see the other test).
    dbs.push(h.dialect === "postgres" ? await openDatabase(target) : dbs[0]!);
    try {
      await migrateToLatest(dbs[0]!, [engineMigrations]);
      const clock = new ManualClock("2026-03-01T10:00:00.000Z");
      const limiters = dbs.map((db) => new SharedRateLimiter(db, { clock }));
      const limit = { ratePerSecond: 1_000, burst: 20 };
      const random = seeded(7);
      const grants: number[] = [];
      for (let step = 0; step < 400; step++) {
        // Spells of 0-25 ms, each ending in a rush on one limiter: spares left idle by one
        // while the bucket refills for the other are the case the leases must get right.
        clock.advance(Math.floor(random() * 26));
        const which = limiters[random() < 0.5 ? 0 : 1]!;
        const rush = 1 + Math.floor(random() * 25);
        for (let i = 0; i < rush; i++) {
          if ((await which.tryAcquire("api:k", limit)) === 0) grants.push(clock.now().getTime());
        }
      }
      expect(grants.length).toBeGreaterThan(1_000);
      expect(worstExcess(grants, limit.ratePerSecond, limit.burst)).toBeLessThanOrEqual(1e-9);
    } finally {
      await dbs[0]!.close();
      if (dbs[1] !== dbs[0]) await dbs[1]!.close();
    }
  });
});
