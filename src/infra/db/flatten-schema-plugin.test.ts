import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { type TestPipelineTables, testRegistry } from "../../testing/test-pipeline.ts";
import { migrateToLatest } from "./migrator.ts";
import { typed } from "./open-database.ts";

describeEachDialect("schema-qualified pipeline tables", (h) => {
  it("one query reaches lab.note on Postgres and lab_note on SQLite", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, testRegistry().migrationScopes());
    const k = typed<TestPipelineTables>(db);
    await k
      .insertInto("lab.note")
      .values({ id: "a", body: "hello", run_id: "r", saved_at: "2026-01-01T00:00:00.000Z" })
      .execute();
    const row = await k
      .selectFrom("lab.note")
      .select(["lab.note.body", "saved_at"])
      .where("lab.note.id", "=", "a")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ body: "hello", saved_at: "2026-01-01T00:00:00.000Z" });

    // The physical name differs by dialect: proof that the plugin, not luck, did the mapping.
    const physical =
      h.dialect === "postgres"
        ? sql<{
            n: number;
          }>`select count(*)::int as n from information_schema.tables where table_schema = 'lab' and table_name = 'note'`
        : sql<{
            n: number;
          }>`select count(*) as n from sqlite_master where type = 'table' and name = 'lab_note'`;
    expect((await physical.execute(db.kysely)).rows[0]?.n).toBe(1);
  });
});
