// The examples `tidemark job describe` prints must run clean against the fake the docs point at.
import { expect, it } from "vitest";
import { itemExample, rankingExample } from "../../src/pipelines/rakuten/params.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten: the job examples", (h) => {
  it("the ranking and item examples fetch every target they name, none failed or missing", async () => {
    const t = await openRakutenHarness(h);
    const ranking = await t.run("rakuten.ranking", rankingExample);
    expect(ranking.status, ranking.error ?? "").toBe("succeeded");
    expect(ranking.summary).toMatchObject({
      total_targets: rankingExample.genre_ids.length,
      failure_count: 0,
    });
    const item = await t.run("rakuten.item", itemExample);
    expect(item.status, item.error ?? "").toBe("succeeded");
    expect(item.summary).toMatchObject({ failure_count: 0, not_found: 0 });
    const codes = await t.db.selectFrom("apl.item").select("rakuten_item_code").execute();
    expect(codes.map((c) => c.rakuten_item_code)).toContain(itemExample.item_codes[0]);
  });
});
