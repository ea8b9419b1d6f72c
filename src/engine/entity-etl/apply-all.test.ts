// applyAll: a batch applier writes many targets in one savepoint; when it throws, its writes
// are undone and each target is applied alone, so only the bad one fails.
import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { type ApplyItem, applyAll } from "./apply-each.ts";
import type { ApplyInput } from "./etl-types.ts";

type Db = { thing: { id: string; price: number } };
type Doc = { price: number };

const items = (prices: Record<string, number>): ApplyItem<Doc>[] =>
  Object.entries(prices).map(([target, price]) => ({
    target,
    document: { price },
    contentHash: `h-${target}`,
    rawKey: `k-${target}`,
    reason: "changed",
  }));

describeEachDialect("applyAll", (h) => {
  async function open(): Promise<Kysely<Db>> {
    const db = typed<Db>(await h.freshDatabase());
    await db.schema
      .createTable("thing")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("price", "integer", (c) => c.notNull().check(sql`price > 0`))
      .execute();
    return db;
  }

  /** One per-target apply, counting calls; refuses a negative price after writing. */
  function appliers() {
    const calls = { one: [] as string[], batches: 0 };
    const apply = async (input: ApplyInput<Doc, Db>) => {
      calls.one.push(input.target);
      await input.tx
        .insertInto("thing")
        .values({ id: input.target, price: Math.abs(input.document.price) })
        .execute();
      if (input.document.price < 0) throw new Error(`refused ${input.target}`);
    };
    const applyBatch = async (
      tx: Parameters<typeof apply>[0]["tx"],
      batch: ReadonlyArray<Omit<ApplyInput<Doc, Db>, "tx">>,
    ) => {
      calls.batches += 1;
      // One multi-row statement: a negative price breaks the check, after nothing else wrote.
      await tx
        .insertInto("thing")
        .values(batch.map((b) => ({ id: b.target, price: b.document.price })))
        .execute();
    };
    return { calls, apply, applyBatch };
  }

  it("applies a whole batch in one go when it goes through", async () => {
    const db = await open();
    const a = appliers();
    const signal = new AbortController().signal;
    const out = await db
      .transaction()
      .execute((tx) => applyAll(tx, items({ a: 1, b: 2, c: 3 }), a, signal));
    expect(out.applied.map((i) => i.target)).toEqual(["a", "b", "c"]);
    expect(out.failed).toEqual([]);
    expect(a.calls).toEqual({ one: [], batches: 1 });
    expect(await db.selectFrom("thing").selectAll().orderBy("id").execute()).toEqual([
      { id: "a", price: 1 },
      { id: "b", price: 2 },
      { id: "c", price: 3 },
    ]);
  });

  it("one bad target in a batch: the batch is undone and only that target fails", async () => {
    const db = await open();
    const a = appliers();
    const signal = new AbortController().signal;
    const out = await db.transaction().execute(async (tx) => {
      await tx.insertInto("thing").values({ id: "before", price: 9 }).execute();
      return applyAll(tx, items({ a: 1, b: -2, c: 3 }), a, signal);
    });
    expect(out.applied.map((i) => i.target)).toEqual(["a", "c"]);
    expect(out.failed.map((f) => [f.item.target, String(f.error)])).toEqual([
      ["b", "Error: refused b"],
    ]);
    expect(a.calls).toEqual({ one: ["a", "b", "c"], batches: 1 });
    // No row twice (the batch's writes were rolled back), b's own write undone, earlier work kept.
    expect(await db.selectFrom("thing").selectAll().orderBy("id").execute()).toEqual([
      { id: "a", price: 1 },
      { id: "before", price: 9 },
      { id: "c", price: 3 },
    ]);
  });

  it("without a batch applier, or on an aborted run, behaves as before", async () => {
    const db = await open();
    const a = appliers();
    const plain = await db
      .transaction()
      .execute((tx) =>
        applyAll(tx, items({ a: 1, b: -2 }), { apply: a.apply }, new AbortController().signal),
      );
    expect(plain.failed.map((f) => f.item.target)).toEqual(["b"]);
    expect(a.calls).toEqual({ one: ["a", "b"], batches: 0 });
    const stop = new AbortController();
    stop.abort();
    await expect(
      db.transaction().execute((tx) => applyAll(tx, items({ x: -1 }), a, stop.signal)),
    ).rejects.toThrow();
    expect((await db.selectFrom("thing").select("id").execute()).map((r) => r.id)).toEqual(["a"]);
  });
});
