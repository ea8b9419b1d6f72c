// The collect_cursor DAO, on SQLite and Postgres.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { typed } from "../../src/infra/db/open-database.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { cursorRepo, openBooksRuntime } from "./support/books-harness.ts";

const H1 = "a".repeat(64);
const H2 = "b".repeat(64);

describeEachDialect("collect_cursor DAO", (h) => {
  it("creates the collect_cursor table with its documented columns", async () => {
    const { runtime } = await openBooksRuntime(h);
    const db = typed<BooksTables>(runtime.db);
    // Raw insert relying on the defaults, as the documented DDL allows.
    await sql`insert into collect_cursor (job_name, query_set_hash) values ('j', ${H1})`.execute(
      db,
    );
    const rows = await sql<Record<string, unknown>>`select * from collect_cursor`.execute(db);
    expect(Object.keys(rows.rows[0]!).sort()).toEqual(
      ["is_exhausted", "job_name", "last_updated_at", "query_set_hash", "start_index"].sort(),
    );
    expect(rows.rows[0]).toMatchObject({ start_index: 0, is_exhausted: 0 });
    expect(String(rows.rows[0]!.last_updated_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("getCollectCursor returns undefined when absent and the row when present", async () => {
    const { runtime } = await openBooksRuntime(h);
    const repo = cursorRepo(runtime);
    expect(await repo.getCollectCursor("job", H1)).toBeUndefined();
    await repo.upsertCollectCursor("job", H1, 40, false);
    expect(await repo.getCollectCursor("job", H1)).toMatchObject({
      job_name: "job",
      query_set_hash: H1,
      start_index: 40,
      is_exhausted: false,
    });
    expect(await repo.getCollectCursor("job", H2)).toBeUndefined();
    expect(await repo.getCollectCursor("other", H1)).toBeUndefined();
  });

  it("upsertCollectCursor inserts then updates, converting is_exhausted to and from 0/1", async () => {
    const { runtime } = await openBooksRuntime(h);
    const repo = cursorRepo(runtime);
    await repo.upsertCollectCursor("job", H1, 0, false);
    await repo.upsertCollectCursor("job", H1, 120, true);
    const cursor = await repo.getCollectCursor("job", H1);
    expect(cursor?.start_index).toBe(120);
    expect(cursor?.is_exhausted).toBe(true);
    const raw = await typed<BooksTables>(runtime.db)
      .selectFrom("collect_cursor")
      .select("is_exhausted")
      .execute();
    expect(raw).toEqual([{ is_exhausted: 1 }]); // stored as INTEGER 1, one row only
    await repo.upsertCollectCursor("job", H1, 120, false);
    expect((await repo.getCollectCursor("job", H1))?.is_exhausted).toBe(false);
  });

  it("upsertCollectCursor refreshes last_updated_at on INSERT and on UPDATE", async () => {
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const { runtime } = await openBooksRuntime(h, { clock });
    const repo = cursorRepo(runtime);
    await repo.upsertCollectCursor("job", H1, 0, false);
    expect((await repo.getCollectCursor("job", H1))?.last_updated_at).toBe(
      "2026-03-01T10:00:00.000Z",
    );
    clock.set("2026-03-02T11:30:00.000Z");
    await repo.upsertCollectCursor("job", H1, 40, false);
    expect((await repo.getCollectCursor("job", H1))?.last_updated_at).toBe(
      "2026-03-02T11:30:00.000Z",
    );
    clock.set("2026-03-03T12:00:00.000Z");
    // Same values again: still an update, still a new timestamp.
    await repo.upsertCollectCursor("job", H1, 40, false);
    expect((await repo.getCollectCursor("job", H1))?.last_updated_at).toBe(
      "2026-03-03T12:00:00.000Z",
    );
  });

  it("resetCollectCursorsByJob deletes every query set of the job and only that job", async () => {
    const { runtime } = await openBooksRuntime(h);
    const repo = cursorRepo(runtime);
    await repo.upsertCollectCursor("job", H1, 40, false);
    await repo.upsertCollectCursor("job", H2, 120, true);
    await repo.upsertCollectCursor("other", H1, 80, false);
    expect(await repo.resetCollectCursorsByJob("job")).toBe(2);
    expect(await repo.getCollectCursor("job", H1)).toBeUndefined();
    expect(await repo.getCollectCursor("job", H2)).toBeUndefined();
    expect(await repo.listCollectCursors("job")).toEqual([]);
    expect((await repo.listCollectCursors()).map((c) => c.job_name)).toEqual(["other"]);
    expect(await repo.resetCollectCursorsByJob("job")).toBe(0);
  });
});
