// `rakuten.is-active --limit N` changes at most N items, as every job honours --limit.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenRuntime } from "./support/domain-runtime.ts";
import { seedIsActive } from "./support/seed-is-active.ts";

describeEachDialect("rakuten.is-active: --limit", (h) => {
  it("changes at most N items (lowest ids first); the dry run and the next run count the rest", async () => {
    const { db, run, clock } = await openRakutenRuntime(h);
    // Five items that all become active (genre and shop known).
    const items = [1, 2, 3, 4, 5].map((n) => ({
      code: `s1:${n}`,
      genre: 1,
      shop: "s1",
      active: 0,
    }));
    await seedIsActive(db, "2026-05-20T01:00:00.000Z", items);
    clock.set("2026-05-20T03:30:00.000Z");

    const dry = await run("rakuten.is-active", {}, { dryRun: true, limit: 2 });
    expect(dry.summary).toMatchObject({ would_activate: 2, would_deactivate: 0 });
    const first = await run("rakuten.is-active", {}, { limit: 2 });
    expect(first.status, first.error ?? "").toBe("succeeded");
    expect(first.summary).toMatchObject({ updated: 2, activated: 2, deactivated: 0 });
    const active = await db
      .selectFrom("apl.item")
      .select("rakuten_item_code")
      .where("is_active", "=", 1)
      .orderBy("rakuten_item_code")
      .execute();
    expect(active.map((r) => r.rakuten_item_code)).toEqual(["s1:1", "s1:2"]);

    const rest = await run("rakuten.is-active");
    expect(rest.summary).toMatchObject({ updated: 3, activated: 3, deactivated: 0 });
    expect((await run("rakuten.is-active")).summary).toMatchObject({ updated: 0 });
  });
});
