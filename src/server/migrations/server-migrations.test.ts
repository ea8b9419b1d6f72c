import { expect, it } from "vitest";
import { engineMigrations } from "../../engine/migrations/index.ts";
import { migrateToLatest, migrationStatus } from "../../infra/db/migrator.ts";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { testRegistry } from "../../testing/test-pipeline.ts";
import type { UiTables } from "../ui/ui-tables.ts";
import { up as createUiTables } from "./0001-ui-sign-in.ts";
import { serverMigrations } from "./index.ts";

const scopes = () => testRegistry().migrationScopes([serverMigrations]);

/** The engine's scope as it was when its migration 0013 created the dashboard's tables. */
const engineBeforeServerScope = {
  name: "engine",
  migrations: async () => ({
    ...(await engineMigrations.migrations()),
    "0013-ui-revoked-sessions": { up: createUiTables },
  }),
};

async function signInRows(db: Database) {
  const ui = typed<UiTables>(db);
  return {
    revoked: await ui.selectFrom("tm_ui_revoked_sessions").selectAll().execute(),
    failures: await ui.selectFrom("tm_ui_sign_in_failures").selectAll().execute(),
  };
}

describeEachDialect("the server's migration scope", (h) => {
  it("runs right after the engine's and creates the dashboard's tables on a fresh database", async () => {
    const db = await h.freshDatabase();
    const results = await migrateToLatest(db, scopes());
    expect(results.map((r) => r.scope)).toEqual(["engine", "server", "lab"]);
    expect(results[1]).toEqual({ scope: "server", applied: ["0001-ui-sign-in"] });
    expect(await signInRows(db)).toEqual({ revoked: [], failures: [] });
    const engine = (await migrationStatus(db, scopes())).filter((s) => s.scope === "engine");
    expect(engine.every((s) => s.executedAt !== undefined)).toBe(true);
  });

  it("on a database the old engine scope migrated, keeps the tables and their rows", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [engineBeforeServerScope]);
    const ui = typed<UiTables>(db);
    await ui
      .insertInto("tm_ui_revoked_sessions")
      .values({ nonce: "n1", expires_at: "2026-01-02T00:00:00.000Z" })
      .execute();
    await ui
      .insertInto("tm_ui_sign_in_failures")
      .values({ client: "10.0.0.1", window_start: "2026-01-01T00:00:00.000Z", failures: 3 })
      .execute();
    const before = await signInRows(db);

    const results = await migrateToLatest(db, scopes());
    expect(results.slice(0, 2)).toEqual([
      { scope: "engine", applied: [] },
      { scope: "server", applied: ["0001-ui-sign-in"] },
    ]);
    expect(await signInRows(db)).toEqual(before);
    expect(before.revoked).toHaveLength(1);
    expect((await migrateToLatest(db, scopes())).flatMap((r) => r.applied)).toEqual([]);
  });
});
