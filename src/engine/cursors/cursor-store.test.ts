import { expect, it } from "vitest";
import { migrateToLatest } from "../../infra/db/migrator.ts";
import { type Database, openDatabase, typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { systemClock } from "../clock/clock.ts";
import type { EngineTables } from "../engine-tables.ts";
import { engineMigrations } from "../migrations/index.ts";
import { CursorStore } from "./cursor-store.ts";

interface Watermark {
  since: string;
  ids: number[];
  page?: { token: string | null };
}

describeEachDialect("cursor store", (h) => {
  async function fresh(): Promise<{ db: Database; clock: ManualClock; cursors: CursorStore }> {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineMigrations]);
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    return { db, clock, cursors: new CursorStore(db, clock) };
  }

  it("stores JSON values with their write time; an unknown key is undefined", async () => {
    const { clock, cursors } = await fresh();
    expect(await cursors.get("mercari:shoes")).toBeUndefined();
    const value: Watermark = { since: "2026-02-28T00:00:00Z", ids: [3, 1], page: { token: null } };
    await cursors.set("mercari:shoes", value);
    expect(await cursors.get<Watermark>("mercari:shoes")).toEqual({
      value,
      updatedAt: "2026-03-01T10:00:00.000Z",
    });
    clock.advance(60_000);
    await cursors.set("mercari:shoes", "done");
    expect(await cursors.get("mercari:shoes")).toEqual({
      value: "done",
      updatedAt: "2026-03-01T10:01:00.000Z",
    });
  });

  it("compareAndSet moves a value only from the expected one, comparing JSON not spelling", async () => {
    const { clock, cursors } = await fresh();
    expect(await cursors.compareAndSet("k", undefined, { a: 1, b: [1, 2] })).toBe(true);
    // "only if absent" fails once the key exists.
    expect(await cursors.compareAndSet("k", undefined, { a: 9 })).toBe(false);
    expect(await cursors.compareAndSet("k", { a: 2, b: [1, 2] }, { a: 9 })).toBe(false);
    expect(await cursors.compareAndSet("k", { a: 1, b: [2, 1] }, { a: 9 })).toBe(false);
    expect((await cursors.get("k"))?.value).toEqual({ a: 1, b: [1, 2] });
    clock.advance(1_000);
    // Key order of the expected value does not matter.
    expect(await cursors.compareAndSet("k", { b: [1, 2], a: 1 }, { a: 2 })).toBe(true);
    expect(await cursors.get("k")).toEqual({
      value: { a: 2 },
      updatedAt: "2026-03-01T10:00:01.000Z",
    });
    // Scalars and null are values too; an absent key never matches a defined expectation.
    expect(await cursors.compareAndSet("n", null, 1)).toBe(false);
    expect(await cursors.compareAndSet("n", undefined, null)).toBe(true);
    expect(await cursors.compareAndSet("n", null, 5)).toBe(true);
    expect(await cursors.compareAndSet<unknown>("n", "5", 6)).toBe(false);
    expect(await cursors.compareAndSet("n", 5, 6)).toBe(true);
    expect((await cursors.get("n"))?.value).toBe(6);
  });

  it("of two concurrent compareAndSets from the same value, on separate connections, exactly one wins", async () => {
    const target = await h.freshTarget();
    const dbs = await Promise.all([openDatabase(target), openDatabase(target)]);
    try {
      await migrateToLatest(dbs[0]!, [engineMigrations]);
      const [a, b] = dbs.map((db) => new CursorStore(db, systemClock));
      for (let round = 0; round < 10; round++) {
        const key = `race:${round}`;
        // Round 0..4 race on creation, 5..9 on moving an existing value.
        const expected: { at: number; by?: string } | undefined =
          round < 5 ? undefined : { at: round };
        if (expected) await a!.set(key, expected);
        const wins = await Promise.all([
          a!.compareAndSet(key, expected, { at: round, by: "a" }),
          b!.compareAndSet(key, expected, { at: round, by: "b" }),
        ]);
        expect(wins.filter(Boolean)).toHaveLength(1);
        const winner = wins[0] ? "a" : "b";
        expect((await a!.get(key))?.value).toEqual({ at: round, by: winner });
      }
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it("writes inside a caller's transaction and is rolled back with it", async () => {
    const { db, cursors } = await fresh();
    await cursors.set("job:a", 1);
    // The caller's transaction is typed with its own tables, as a pipeline's would be.
    const k = typed<EngineTables>(db);
    await expect(
      k.transaction().execute(async (trx) => {
        const inTrx = cursors.within(trx);
        expect(await inTrx.compareAndSet("job:a", 1, 2)).toBe(true);
        await inTrx.set("job:b", "x");
        expect((await inTrx.get("job:a"))?.value).toBe(2);
        throw new Error("fence lost");
      }),
    ).rejects.toThrow("fence lost");
    expect((await cursors.get("job:a"))?.value).toBe(1);
    expect(await cursors.get("job:b")).toBeUndefined();
    await k.transaction().execute(async (trx) => {
      expect(await cursors.within(trx).compareAndSet("job:a", 1, 3)).toBe(true);
    });
    expect((await cursors.get("job:a"))?.value).toBe(3);
  });

  it("lists and resets by exact key and by literal prefix", async () => {
    const { cursors } = await fresh();
    for (const key of ["rakuten:a", "rakuten:b", "rakuten_x", "Rakuten:c", "mercari:a", "r%:z"]) {
      await cursors.set(key, key.length);
    }
    expect((await cursors.list("rakuten:")).map((c) => c.key)).toEqual(["rakuten:a", "rakuten:b"]);
    expect((await cursors.list("r%")).map((c) => c.key)).toEqual(["r%:z"]);
    expect(await cursors.list()).toHaveLength(6);
    expect((await cursors.list<number>("mercari:"))[0]).toMatchObject({
      key: "mercari:a",
      value: 9,
    });
    expect(await cursors.reset("mercari:a")).toBe(true);
    expect(await cursors.reset("mercari:a")).toBe(false);
    expect(await cursors.resetPrefix("rakuten:")).toBe(2);
    expect(await cursors.resetPrefix("rakuten:")).toBe(0);
    expect((await cursors.list()).map((c) => c.key)).toEqual(
      ["Rakuten:c", "r%:z", "rakuten_x"].sort(),
    );
  });

  it("refuses empty keys, an empty reset prefix and values that are not JSON", async () => {
    const { cursors } = await fresh();
    await cursors.set("keep", 1);
    await expect(cursors.get("")).rejects.toThrow("cursor key must be a non-empty string");
    await expect(cursors.resetPrefix("")).rejects.toThrow(
      "cursor key prefix must be a non-empty string",
    );
    await expect(cursors.set("k", undefined)).rejects.toThrow("a cursor value must be JSON");
    await expect(cursors.set("k", () => 1)).rejects.toThrow("a cursor value must be JSON");
    expect(await cursors.list()).toHaveLength(1);
  });
});
