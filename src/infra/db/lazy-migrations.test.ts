import { type Kysely, sql } from "kysely";
import { expect, it, vi } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { lazyMigrations } from "./lazy-migrations.ts";
import { migrateToLatest, migrationStatus } from "./migrator.ts";

/** A migration module creating table `t`. */
function tableModule(t: string) {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create table ${sql.table(t)} (id integer)`.execute(db);
    },
  };
}

describeEachDialect("lazyMigrations", (h) => {
  /** A scope of two migrations whose loaders are spies (as a fresh process would build it). */
  const scope = () => {
    const loaders = {
      "0001-a": vi.fn(async () => tableModule("lazy_a")),
      "0002-b": vi.fn(async () => tableModule("lazy_b")),
    };
    return { loaders, scope: { name: "lazy", migrations: lazyMigrations(loaders) } };
  };

  it("lists the names without loading a module; an up-to-date scope loads none", async () => {
    const db = await h.freshDatabase();
    const first = scope();
    const states = await migrationStatus(db, [first.scope]);
    expect(states.map((s) => [s.name, s.executedAt])).toEqual([
      ["0001-a", undefined],
      ["0002-b", undefined],
    ]);
    expect(first.loaders["0001-a"]).not.toHaveBeenCalled();
    expect(await migrateToLatest(db, [first.scope])).toEqual([
      { scope: "lazy", applied: ["0001-a", "0002-b"] },
    ]);
    expect(first.loaders["0001-a"]).toHaveBeenCalledTimes(1);
    expect(first.loaders["0002-b"]).toHaveBeenCalledTimes(1);
    // The next command: the history lists both, so nothing is loaded or run.
    const next = scope();
    expect(await migrateToLatest(db, [next.scope])).toEqual([{ scope: "lazy", applied: [] }]);
    expect(next.loaders["0001-a"]).not.toHaveBeenCalled();
    expect(next.loaders["0002-b"]).not.toHaveBeenCalled();
  });

  it("a module that fails to load fails its migration, named, and it stays pending", async () => {
    const db = await h.freshDatabase();
    const broken = {
      name: "lazy",
      migrations: lazyMigrations({
        "0001-a": async () => tableModule("lazy_c"),
        "0002-b": async () => {
          throw new Error("Cannot find module './0002-b.ts'");
        },
      }),
    };
    await expect(migrateToLatest(db, [broken])).rejects.toThrow(
      "migration failed in lazy/0002-b: Cannot find module './0002-b.ts'",
    );
    // (On Postgres the whole batch rolls back with it: 0001-a is pending there too.)
    const states = await migrationStatus(db, [broken]);
    expect(states.find((s) => s.name === "0002-b")?.executedAt).toBeUndefined();
  });
});

it("down() runs the module's down, loading it once; a module without one cannot be undone", async () => {
  const calls: string[] = [];
  const load = vi.fn(async () => ({
    up: async () => {
      calls.push("up");
    },
    down: async () => {
      calls.push("down");
    },
  }));
  const migrations = await lazyMigrations({
    "0001-a": load,
    "0002-b": async () => ({ up: async () => {} }),
  })();
  // The modules here never touch the database.
  const db = {} as Kysely<unknown>;
  await migrations["0001-a"]!.up(db);
  await migrations["0001-a"]!.down!(db);
  expect(calls).toEqual(["up", "down"]);
  expect(load).toHaveBeenCalledTimes(1);
  await expect(migrations["0002-b"]!.down!(db)).rejects.toThrow(
    "migration 0002-b has no down(): it cannot be undone",
  );
});
