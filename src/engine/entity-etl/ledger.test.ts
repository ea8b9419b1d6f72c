import { sql } from "kysely";
import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { type DialectHarness, describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { Ledger, type LedgerUpsert } from "./ledger.ts";
import { createLedgerTable } from "./ledger-table.ts";

const H1 = "1".repeat(64);
const H2 = "2".repeat(64);

function upsert(
  sourceId: string,
  contentHash: string,
  savedAt = "2026-05-01T08:00:00.000Z",
): LedgerUpsert {
  return { sourceId, contentHash, s3Key: `raw/${sourceId}/${contentHash}`, etag: '"e"', savedAt };
}

async function openLedger(h: DialectHarness, table = "apl.staging") {
  const db = await h.freshDatabase();
  await createLedgerTable(db.kysely, table);
  const clock = new ManualClock("2026-05-01T08:00:00.000Z");
  return { db, clock, ledger: new Ledger(db, table, clock) };
}

describeEachDialect("Ledger", (h) => {
  it("creates the table under the pipeline's name, schema-qualified on Postgres, flattened on SQLite", async () => {
    const { db } = await openLedger(h);
    const found =
      h.dialect === "sqlite"
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where name in ('apl_staging', 'apl_staging_saved_at_idx') order by name`.execute(
            db.kysely,
          )
        : await sql<{
            name: string;
          }>`select tablename as name from pg_tables where schemaname = 'apl' and tablename = 'staging' union all select indexname from pg_indexes where schemaname = 'apl' and indexname = 'apl_staging_saved_at_idx' order by name`.execute(
            db.kysely,
          );
    expect(found.rows.map((r) => r.name)).toEqual(
      h.dialect === "sqlite"
        ? ["apl_staging", "apl_staging_saved_at_idx"]
        : ["apl_staging_saved_at_idx", "staging"],
    );
  });

  it("upserts: new content resets applied_*, keeps created_at, moves updated_at", async () => {
    const { clock, ledger } = await openLedger(h);
    expect(await ledger.batchUpsert("s", "item", [upsert("a", H1), upsert("b", H1)])).toBe(2);
    expect(await ledger.markApplied("s", "item", [{ sourceId: "a", contentHash: H1 }], 3)).toBe(1);
    const applied = await ledger.get("s", "item", "a");
    expect(applied).toMatchObject({ applied_version: 3, applied_at: "2026-05-01T08:00:00.000Z" });
    clock.advance(60_000);
    await ledger.batchUpsert("s", "item", [upsert("a", H2, "2026-05-01T08:01:00.000Z")]);
    expect(await ledger.get("s", "item", "a")).toEqual({
      source: "s",
      entity: "item",
      source_id: "a",
      content_hash: H2,
      s3_key: `raw/a/${H2}`,
      etag: '"e"',
      saved_at: "2026-05-01T08:01:00.000Z",
      created_at: "2026-05-01T08:00:00.000Z",
      updated_at: "2026-05-01T08:01:00.000Z",
      applied_at: null,
      applied_version: null,
    });
    expect(await ledger.existsHash("s", "item", "a", H2)).toBe(true);
    expect(await ledger.existsHash("s", "item", "a", H1)).toBe(false);
    expect(await ledger.existsHash("s", "genre", "a", H2)).toBe(false);
    const current = await ledger.getCurrent("s", "item", ["a", "b", "zz"]);
    expect([...current.keys()].sort()).toEqual(["a", "b"]);
    expect(current.get("a")).toEqual({
      source_id: "a",
      content_hash: H2,
      s3_key: `raw/a/${H2}`,
      applied_version: null,
    });
  });

  it("marks applied only rows still holding the applied content", async () => {
    const { ledger } = await openLedger(h);
    await ledger.batchUpsert("s", "item", [upsert("a", H2)]);
    expect(await ledger.markApplied("s", "item", [{ sourceId: "a", contentHash: H1 }], 1)).toBe(0);
    expect((await ledger.get("s", "item", "a"))?.applied_version).toBeNull();
  });

  it("pages through rows pending re-apply for a version and counts them", async () => {
    const { ledger } = await openLedger(h);
    const ids = ["a", "b", "c", "d", "e"];
    await ledger.batchUpsert(
      "s",
      "item",
      ids.map((id) => upsert(id, H1)),
    );
    await ledger.batchUpsert("s", "genre", [upsert("a", H1)]);
    await ledger.markApplied("s", "item", [{ sourceId: "b", contentHash: H1 }], 2);
    await ledger.markApplied("s", "item", [{ sourceId: "c", contentHash: H1 }], 1);
    expect(await ledger.countPendingReapply("s", "item", 2)).toBe(4);
    const first = await ledger.pendingReapply("s", "item", 2, { limit: 2 });
    const last = first.at(-1);
    const rest = await ledger.pendingReapply("s", "item", 2, {
      after: last && { savedAt: last.saved_at, sourceId: last.source_id },
      limit: 10,
    });
    expect([...first, ...rest].map((r) => r.source_id)).toEqual(["a", "c", "d", "e"]);
  });

  it("pages through pending rows in the order they were saved, then by source id", async () => {
    const { ledger } = await openLedger(h);
    const at = (m: number) => `2026-05-01T08:0${m}:00.000Z`;
    await ledger.batchUpsert("s", "item", [
      upsert("m", H1, at(1)),
      upsert("a", H1, at(2)),
      upsert("c", H1, at(2)),
      upsert("b", H1, at(2)),
      upsert("z", H1, at(0)),
    ]);
    const seen: string[][] = [];
    let after: { savedAt: string; sourceId: string } | undefined;
    for (;;) {
      const rows = await ledger.pendingReapply("s", "item", 1, { after, limit: 2 });
      if (rows.length === 0) break;
      seen.push(rows.map((r) => r.source_id));
      const last = rows[rows.length - 1] as (typeof rows)[number];
      after = { savedAt: last.saved_at, sourceId: last.source_id };
    }
    expect(seen).toEqual([["z", "m"], ["a", "b"], ["c"]]);
  });

  it("finds rows saved since a time and sums them up per entity", async () => {
    const { ledger } = await openLedger(h);
    await ledger.batchUpsert("s", "item", [
      upsert("old", H1, "2026-04-30T23:59:59.000Z"),
      upsert("new1", H1, "2026-05-01T00:00:00.000Z"),
      upsert("new2", H1, "2026-05-01T10:00:00.000Z"),
    ]);
    await ledger.markApplied("s", "item", [{ sourceId: "new1", contentHash: H1 }], 1);
    const since = new Date("2026-05-01T00:00:00.000Z");
    expect((await ledger.savedSince("s", "item", since)).map((r) => r.source_id)).toEqual([
      "new1",
      "new2",
    ]);
    expect(await ledger.stats("s", "item", { since, applyVersion: 1 })).toEqual({
      rows: 3,
      savedSince: 2,
      pendingReapply: 2,
      lastSavedAt: "2026-05-01T10:00:00.000Z",
    });
    expect(await ledger.stats("s", "tag", { since, applyVersion: 1 })).toEqual({
      rows: 0,
      savedSince: 0,
      pendingReapply: 0,
      lastSavedAt: null,
    });
  });

  it("keeps each pipeline's ledger in its own table; writes follow a caller's transaction", async () => {
    const { db, clock, ledger } = await openLedger(h);
    await createLedgerTable(db.kysely, "other_ledger");
    const other = new Ledger(db, "other_ledger", clock);
    await other.batchUpsert("s", "item", [upsert("a", H1)]);
    expect(await ledger.get("s", "item", "a")).toBeUndefined();
    await expect(
      typed<object>(db)
        .transaction()
        .execute(async (tx) => {
          await ledger.within(tx).batchUpsert("s", "item", [upsert("t", H1)]);
          throw new Error("roll back");
        }),
    ).rejects.toThrow("roll back");
    expect(await ledger.get("s", "item", "t")).toBeUndefined();
    expect(() => new Ledger(db, "apl.staging; drop", clock)).toThrow(/not "name" or "schema.name"/);
  });
});
