import { expect, it } from "vitest";
import { migrateToLatest } from "../../infra/db/migrator.ts";
import { type Database, openDatabase } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { engineMigrations } from "../migrations/index.ts";
import { SharedRateLimiter } from "./shared-rate-limiter.ts";

describeEachDialect("shared rate limiter", (h) => {
  /** A limiter whose sleeps move the manual clock instead of waiting. */
  function limiterOn(db: Database, clock: ManualClock) {
    const sleeps: number[] = [];
    const limiter = new SharedRateLimiter(db, {
      clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
    });
    return { limiter, sleeps };
  }

  async function fresh() {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    return { db, clock, ...limiterOn(db, clock) };
  }

  it("lets the burst through at once, then spaces takes to the rate", async () => {
    const { clock, limiter, sleeps } = await fresh();
    const limit = { ratePerSecond: 10, burst: 3 };
    const started = clock.now().getTime();
    for (let i = 0; i < 3; i++) await limiter.acquire("api:a", limit);
    expect(sleeps).toEqual([]);
    for (let i = 0; i < 4; i++) await limiter.acquire("api:a", limit);
    expect(sleeps).toEqual([100, 100, 100, 100]);
    expect(clock.now().getTime() - started).toBe(400);
    // A long pause refills up to the burst only.
    clock.advance(60_000);
    expect([
      await limiter.tryAcquire("api:a", limit),
      await limiter.tryAcquire("api:a", limit),
      await limiter.tryAcquire("api:a", limit),
      await limiter.tryAcquire("api:a", limit),
    ]).toEqual([0, 0, 0, 100]);
  });

  it("keeps one bucket per key", async () => {
    const { limiter } = await fresh();
    const limit = { ratePerSecond: 1, burst: 1 };
    expect(await limiter.tryAcquire("api:a", limit)).toBe(0);
    expect(await limiter.tryAcquire("api:a", limit)).toBe(1000);
    expect(await limiter.tryAcquire("api:b", limit)).toBe(0);
  });

  it("is one bucket for every limiter on the database", async () => {
    const target = await h.freshTarget();
    const dbs = await Promise.all([openDatabase(target), openDatabase(target)]);
    try {
      await migrateToLatest(dbs[0]!, [engineMigrations]);
      const limit = { ratePerSecond: 2, burst: 2 };
      const clock = new ManualClock("2026-03-01T10:00:00.000Z");
      const [a, b] = dbs.map((db) => new SharedRateLimiter(db, { clock }));
      const take = [
        () => a!.tryAcquire("api:k", limit),
        () => b!.tryAcquire("api:k", limit),
        () => a!.tryAcquire("api:k", limit),
        () => b!.tryAcquire("api:k", limit),
      ];
      // Concurrently on Postgres; one after another on SQLite, where a second connection in the
      // same thread would block the thread on the first one's write lock (processes do not).
      const waits =
        h.dialect === "postgres"
          ? await Promise.all(take.map((t) => t()))
          : [await take[0]!(), await take[1]!(), await take[2]!(), await take[3]!()];
      expect(waits.filter((w) => w === 0)).toHaveLength(2);
      expect(waits.filter((w) => w === 500)).toHaveLength(2);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it("gives a host whose clock is behind no refill until its clock catches up", async () => {
    const { db } = await fresh();
    const limit = { ratePerSecond: 2, burst: 2 };
    const here = new ManualClock("2026-03-01T10:00:00.000Z");
    const ahead = new ManualClock("2026-03-01T10:00:05.000Z");
    const behindHost = new SharedRateLimiter(db, { clock: here });
    const aheadHost = new SharedRateLimiter(db, { clock: ahead });
    expect(await aheadHost.tryAcquire("api:k", limit)).toBe(0);
    expect(await aheadHost.tryAcquire("api:k", limit)).toBe(0);
    // The bucket stands at 10:00:05 with no token: half a second away, plus 5 s of lag.
    expect(await behindHost.tryAcquire("api:k", limit)).toBe(5_500);
    here.advance(1_000);
    expect(await behindHost.tryAcquire("api:k", limit)).toBe(4_500);
    ahead.advance(500);
    expect(await aheadHost.tryAcquire("api:k", limit)).toBe(0);
  });

  it("stops waiting when the signal aborts, without taking a token", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const limiter = new SharedRateLimiter(db);
    const limit = { ratePerSecond: 0.1, burst: 1 };
    await limiter.acquire("api:slow", limit);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("run cancelled")), 50);
    const started = performance.now();
    await expect(limiter.acquire("api:slow", limit, controller.signal)).rejects.toThrow(
      "run cancelled",
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect(
      limiter.acquire("api:slow", limit, AbortSignal.abort(new Error("gone"))),
    ).rejects.toThrow("gone");
  });

  it("refuses an empty key and unusable limits before touching the database", async () => {
    const { limiter } = await fresh();
    await expect(limiter.tryAcquire("", { ratePerSecond: 1, burst: 1 })).rejects.toThrow(
      "rate limit key must be a non-empty string",
    );
    await expect(limiter.acquire("k", { ratePerSecond: -1, burst: 1 })).rejects.toThrow(
      "ratePerSecond must be a positive number, got -1",
    );
  });
});
