import { expect, it } from "vitest";
import { migrateToLatest } from "../../infra/db/migrator.ts";
import { openDatabase, typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { systemClock } from "../clock/clock.ts";
import type { EngineTables } from "../engine-tables.ts";
import { engineMigrations } from "../migrations/index.ts";
import { LeaseStore } from "./lease-store.ts";
import type { ProcessOwner } from "./process-owner.ts";

describeEachDialect("leases", (h) => {
  it("of many contenders on separate connections exactly one wins", async () => {
    const target = await h.freshTarget();
    const dbs = await Promise.all(Array.from({ length: 6 }, () => openDatabase(target)));
    try {
      await migrateToLatest(dbs[0]!, [engineMigrations]);
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          dbs.map((db, i) =>
            new LeaseStore(db, systemClock).tryAcquire(`k${round}`, `holder-${i}`, 60_000),
          ),
        );
        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      }
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it("an expired lease is taken over; the old holder can no longer renew or release it", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const clock = new ManualClock();
    const leases = new LeaseStore(db, clock);
    expect(await leases.tryAcquire("job:a", "one", 10_000)).toBeDefined();
    expect(await leases.tryAcquire("job:a", "two", 10_000)).toBeUndefined();
    clock.advance(9_999);
    expect(await leases.isHeld("job:a")).toBe(true);
    expect(await leases.tryAcquire("job:a", "two", 10_000)).toBeUndefined();
    clock.advance(1);
    expect(await leases.isHeld("job:a")).toBe(false);
    const taken = await leases.tryAcquire("job:a", "two", 10_000);
    expect(taken?.holder).toBe("two");
    expect(await leases.renew("job:a", "one", 10_000)).toBe(false);
    await leases.release("job:a", "one");
    expect((await leases.get("job:a"))?.holder).toBe("two");
  });

  it("renewal keeps the lease alive; release frees it at once", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const clock = new ManualClock();
    const leases = new LeaseStore(db, clock);
    await leases.tryAcquire("s", "one", 1_000);
    for (let i = 0; i < 5; i++) {
      clock.advance(800);
      expect(await leases.renew("s", "one", 1_000)).toBe(true);
    }
    expect(await leases.tryAcquire("s", "two", 1_000)).toBeUndefined();
    await leases.release("s", "one");
    expect(await leases.get("s")).toBeUndefined();
    expect(await leases.tryAcquire("s", "two", 1_000)).toBeDefined();
  });

  it("a lease whose process died on this machine is taken over at once; a live or remote one is not", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const clock = new ManualClock();
    const here = { host: "box", pidNs: "pid:[1]" };
    const dead = new Set([100]);
    const as = (owner: ProcessOwner | null) =>
      new LeaseStore(db, clock, {
        owner: owner ?? { ...here, pid: 999 },
        alive: (pid) => !dead.has(pid),
      });
    expect(await as({ ...here, pid: 100 }).tryAcquire("job:a", "one", 60_000)).toBeDefined();
    // Another machine, another pid namespace (a container sharing the host name): not provable.
    expect(await as({ ...here, host: "other", pid: 200 }).tryAcquire("job:a", "x", 60_000)).toBe(
      undefined,
    );
    expect(await as({ ...here, pidNs: "pid:[2]", pid: 200 }).tryAcquire("job:a", "x", 60_000)).toBe(
      undefined,
    );
    // Two contenders on this machine: exactly one takes it.
    const [b, c] = await Promise.all([
      as({ ...here, pid: 200 }).tryAcquire("job:a", "two", 60_000),
      as({ ...here, pid: 300 }).tryAcquire("job:a", "three", 60_000),
    ]);
    const winner = b ?? c;
    expect([b, c].filter((l) => l !== undefined)).toHaveLength(1);
    expect(winner?.tookOverFrom).toEqual({ holder: "one", owner: { ...here, pid: 100 } });
    expect(await as({ ...here, pid: 100 }).renew("job:a", "one", 60_000)).toBe(false);
    // The winner is alive: nobody takes it from him before it expires.
    expect(await as({ ...here, pid: 400 }).tryAcquire("job:a", "four", 60_000)).toBeUndefined();
    // A row written before owners were recorded waits for its TTL.
    await as({ ...here, pid: 100 }).tryAcquire("job:b", "old", 60_000);
    await typed<EngineTables>(db)
      .updateTable("tm_leases")
      .set({ owner: null })
      .where("key", "=", "job:b")
      .execute();
    expect(await as({ ...here, pid: 200 }).tryAcquire("job:b", "new", 60_000)).toBeUndefined();
  });
});
