import { expect, it } from "vitest";
import { engineMigrations } from "../../engine/migrations/index.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { testRegistry } from "../../testing/test-pipeline.ts";
import { migrateToLatest, migrationStatus } from "./migrator.ts";

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
});
