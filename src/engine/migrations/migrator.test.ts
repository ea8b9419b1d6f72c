import { expect, it } from "vitest";
import { migrateToLatest, migrationStatus } from "../../infra/db/migrator.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { testRegistry } from "../../testing/test-pipeline.ts";
import { engineMigrations } from "./index.ts";

describeEachDialect("migrator", (h) => {
  it("applies the engine's then each pipeline's migrations once", async () => {
    const db = await h.freshDatabase();
    const scopes = testRegistry().migrationScopes();
    const engineNames = Object.keys(await engineMigrations.migrations()).sort();
    expect(engineNames[0]).toBe("0001-engine-core");
    const before = await migrationStatus(db, scopes);
    expect(before.map((s) => [s.scope, s.name, s.executedAt])).toEqual([
      ...engineNames.map((n) => ["engine", n, undefined]),
      ["lab", "0001-note", undefined],
    ]);
    const first = await migrateToLatest(db, scopes);
    expect(first).toEqual([
      { scope: "engine", applied: engineNames },
      { scope: "lab", applied: ["0001-note"] },
    ]);
    const second = await migrateToLatest(db, scopes);
    expect(second.flatMap((r) => r.applied)).toEqual([]);
    const after = await migrationStatus(db, scopes);
    expect(after.every((s) => typeof s.executedAt === "string")).toBe(true);
  });

  it("a failing migration names its scope and file and leaves later ones pending", async () => {
    const db = await h.freshDatabase();
    const scopes = [
      ...testRegistry().migrationScopes(),
      {
        name: "broken",
        migrations: async () => ({
          "0001-bad": {
            async up() {
              throw new Error("boom");
            },
          },
        }),
      },
    ];
    await expect(migrateToLatest(db, scopes)).rejects.toThrow(
      "migration failed in broken/0001-bad: boom",
    );
    const states = await migrationStatus(db, scopes);
    expect(states.find((s) => s.scope === "broken")?.executedAt).toBeUndefined();
    expect(states.find((s) => s.scope === "engine")?.executedAt).toBeDefined();
  });

  it("an up-to-date scope is skipped, a new migration still runs, an unknown one is refused", async () => {
    const db = await h.freshDatabase();
    let ran = 0;
    const step = {
      async up() {
        ran++;
      },
    };
    const scope = (names: string[]) => ({
      name: "grow",
      migrations: async () => Object.fromEntries(names.map((n) => [n, step])),
    });
    await migrateToLatest(db, [scope(["0001-a"])]);
    expect(await migrateToLatest(db, [scope(["0001-a"])])).toEqual([
      { scope: "grow", applied: [] },
    ]);
    expect(ran).toBe(1);
    expect(await migrateToLatest(db, [scope(["0001-a", "0002-b"])])).toEqual([
      { scope: "grow", applied: ["0002-b"] },
    ]);
    expect(ran).toBe(2);
    // The database is newer than the code: not silently accepted.
    await expect(migrateToLatest(db, [scope(["0001-a"])])).rejects.toThrow(/0002-b/);
  });
});
