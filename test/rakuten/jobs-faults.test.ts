import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";
import { refuseWrites } from "./support/refuse-writes.ts";
import { gateRequests } from "./support/request-gate.ts";

describeEachDialect("rakuten jobs: faults", (h) => {
  it("a burst of 429s is retried (Retry-After honoured): nothing fails", async () => {
    // Five attempts: even if one target draws all three 429s, it gets through.
    const t = await openRakutenHarness(h, {
      knobs: { burst429: 3 },
      settings: { retry_max_attempts: 5 },
    });
    const r = await t.run("rakuten.ranking", { genre_ids: [0, 100227, 510915] });
    expect(r.status, r.error ?? "").toBe("succeeded");
    expect(r.summary).toMatchObject({ changed: 3, failure_count: 0 });
    expect(t.fake.stats.burst429).toBe(3);
    expect((r.summary.api as { rateLimited: number }).rateLimited).toBe(3);
  });

  it("503 maintenance fails the run (exit 1 by failure rate) writing nothing; the rerun completes", async () => {
    const t = await openRakutenHarness(h, { knobs: { maintenance: true } });
    const r = await t.run("rakuten.ranking", { genre_ids: [0, 100227] });
    expect(r.status).toBe("failed");
    expect(r.error).toContain("2 of 2 targets failed");
    expect(r.summary).toMatchObject({ failure_count: 2, failure_rate: 1 });
    expect((r.summary.failures as Array<{ kind: string }>)[0]?.kind).toBe("fetch");
    expect(await t.staging("ranking")).toEqual([]);
    expect(t.blobs.rawPuts).toEqual([]);
    t.fake.setKnobs({ maintenance: false });
    const again = await t.run("rakuten.ranking", { genre_ids: [0, 100227] });
    expect(again.status).toBe("succeeded");
    expect(again.summary).toMatchObject({ changed: 2, failure_count: 0 });
  });

  it("a malformed payload is that target's failure; within max_failure_rate the run succeeds and the next run picks it up", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(4);
    t.fake.setKnobs({ malformed: 1 });
    const r = await t.run("rakuten.item", {
      item_codes: codes,
      max_failure_rate: 0.5,
      concurrency: 1,
    });
    expect(r.status, r.error ?? "").toBe("succeeded");
    expect(r.summary).toMatchObject({ total_targets: 4, changed: 3, failure_count: 1 });
    const failed = (r.summary.failures as Array<{ target: string; kind: string }>)[0]!;
    expect(failed.kind).toBe("fetch");
    expect((await t.staging("item")).map((s) => s.source_id)).not.toContain(failed.target);
    const strict = await t.run("rakuten.item", { item_codes: codes });
    expect(strict.summary).toMatchObject({ changed: 1, unchanged_skipped: 3, failure_count: 0 });
    expect(await t.staging("item")).toHaveLength(4);
  });

  it("a raw put failing mid-run leaves that target's staging and domain rows untouched", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(5);
    const victim = codes[2]!;
    await t.run("rakuten.item", { item_codes: codes });
    const before = await t.staging("item");
    const itemBefore = await t.db
      .selectFrom("apl.item")
      .selectAll()
      .where("rakuten_item_code", "=", victim)
      .executeTakeFirstOrThrow();
    // Both the victim and a neighbour change; only the victim's put fails.
    t.catalogue.setPrice(victim, 99_999);
    t.catalogue.setPrice(codes[3]!, 88_888);
    t.blobs.failPutWhen = (key) => key.includes(`source_id=${victim}/`);
    const r = await t.run("rakuten.item", { item_codes: codes, max_failure_rate: 0.5 });
    expect(r.status).toBe("succeeded");
    expect(r.summary).toMatchObject({ changed: 1, failure_count: 1, unchanged_skipped: 3 });
    expect(r.summary.failures).toMatchObject([{ target: victim, kind: "put" }]);
    const after = await t.staging("item");
    expect(after.find((s) => s.source_id === victim)).toEqual(
      before.find((s) => s.source_id === victim),
    );
    const itemAfter = await t.db
      .selectFrom("apl.item")
      .selectAll()
      .where("rakuten_item_code", "=", victim)
      .executeTakeFirstOrThrow();
    expect(itemAfter).toEqual(itemBefore);
    // With the store healthy again the change goes through.
    t.blobs.failPutWhen = () => false;
    const again = await t.run("rakuten.item", { item_codes: codes });
    expect(again.summary).toMatchObject({ changed: 1, unchanged_skipped: 4 });
    const fixed = await t.db
      .selectFrom("apl.item")
      .select("item_price")
      .where("rakuten_item_code", "=", victim)
      .executeTakeFirstOrThrow();
    expect(fixed.item_price).toBe(99_999);
  });

  it("a database error fails the run with nothing committed for its batch; the rerun completes", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(6);
    // A trigger refusing staging writes stands in for a database failing mid-run.
    const allow = await refuseWrites(t.db, h.dialect, {
      name: "refuse",
      table: "staging",
      op: "insert",
      message: "injected database failure",
    });
    const r = await t.run("rakuten.item", { item_codes: codes });
    expect(r.status).toBe("failed");
    expect(r.error).toContain("injected database failure");
    expect(await t.staging("item")).toEqual([]);
    expect(await t.db.selectFrom("apl.item").selectAll().execute()).toEqual([]);
    await allow();
    const again = await t.run("rakuten.item", { item_codes: codes });
    expect(again.status).toBe("succeeded");
    // The raw objects the failed run put are reused, not written again.
    expect(again.summary).toMatchObject({ changed: 6, blob_puts: 0, blob_existing: 6 });
    expect(await t.staging("item")).toHaveLength(6);
    expect(await t.db.selectFrom("apl.market_snapshot").selectAll().execute()).toHaveLength(6);
  });

  it("a failing apply is rolled back alone (its shop too) and re-applied by the next run", async () => {
    const t = await openRakutenHarness(h, { size: 60 });
    // Two items of one shop: the first one's apply fails after its shop was written.
    const all = t.catalogue.itemCodes(60);
    const byShop = new Map<string, string[]>();
    for (const c of all) byShop.set(c.split(":")[0]!, [...(byShop.get(c.split(":")[0]!) ?? []), c]);
    const [victim, sibling] = [...byShop.values()].find((l) => l.length >= 2)!;
    const codes = [
      victim!,
      sibling!,
      ...all.filter((c) => c !== victim && c !== sibling).slice(0, 3),
    ];
    const allow = await refuseWrites(t.db, h.dialect, {
      name: "refuse_item",
      table: "item",
      op: "insert",
      message: "injected apply failure",
      only: { column: "rakuten_item_code", value: victim! },
    });
    const r = await t.run("rakuten.item", { item_codes: codes, max_failure_rate: 0.5 });
    expect(r.status).toBe("succeeded");
    expect(r.summary).toMatchObject({ changed: 4, failure_count: 1 });
    expect(r.summary.failures).toMatchObject([{ target: victim, kind: "apply" }]);
    const row = (await t.staging("item")).find((s) => s.source_id === victim)!;
    expect(row.applied_version).toBeNull();
    // The sibling's apply wrote the shop although the victim's shop write was rolled back.
    const shop = victim!.split(":")[0]!;
    expect(
      await t.db
        .selectFrom("apl.shop")
        .select("rakuten_shop_code")
        .where("rakuten_shop_code", "=", shop)
        .execute(),
    ).toHaveLength(1);
    await allow();
    const again = await t.run("rakuten.item", { item_codes: codes });
    expect(again.summary).toMatchObject({ reapplied: 1, unchanged_skipped: 4, blob_puts: 0 });
    expect(await t.db.selectFrom("apl.item").selectAll().execute()).toHaveLength(5);
  });

  it("a run that lost its lease changes nothing", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(4);
    const { reached, release } = gateRequests(t);
    const running = t.run("rakuten.item", { item_codes: codes }, { leaseTtlMs: 60_000 });
    await reached;
    // The run stalls past its lease's TTL and another run takes the lease over.
    t.clock.advance(61_000);
    expect((await t.rt.leases.tryAcquire("rakuten:item", "run-b", 60_000))?.holder).toBe("run-b");
    release();
    const report = await running;
    expect(report.status).toBe("abandoned");
    expect(await t.staging("item")).toEqual([]);
    expect(await t.db.selectFrom("apl.item").selectAll().execute()).toEqual([]);
  });
});
