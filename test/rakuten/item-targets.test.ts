// rakuten.item's targets: a genre named in genre_ids without a stored ranking is said, not silent.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten.item: genres without a ranking", (h) => {
  it("names the genre_ids no stored ranking covers in the summary; ranked ones give targets", async () => {
    const t = await openRakutenHarness(h);
    expect((await t.run("rakuten.ranking", { genre_ids: [0] })).status).toBe("succeeded");
    const r = await t.run("rakuten.item", { genre_ids: [0, 100227, 100227] });
    expect(r.status, r.error ?? "").toBe("succeeded");
    expect(r.summary.genres_without_ranking).toEqual([100227]);
    expect(r.summary.total_targets).toBeGreaterThan(0);

    const all = await t.run("rakuten.item");
    expect(all.summary.genres_without_ranking).toBeUndefined();
  });

  it("a genre whose ranking came back empty gives no target (its older snapshot is not current)", async () => {
    const t = await openRakutenHarness(h);
    const cat = t.catalogue;
    // A leaf genre with few items: every one of them leaves Rakuten.
    const leaf = [...cat.genres.keys()]
      .filter((g) => g !== 0 && cat.rankedIndexes(g).length > 0)
      .sort((a, b) => cat.rankedIndexes(a).length - cat.rankedIndexes(b).length)[0]!;
    const codes = cat.rankedIndexes(leaf).map((i) => cat.codeAt(i));
    expect((await t.run("rakuten.ranking", { genre_ids: [leaf] })).status).toBe("succeeded");
    expect((await t.run("rakuten.item", { genre_ids: [leaf] })).summary.total_targets).toBe(
      codes.length,
    );
    for (const code of codes) cat.removeItem(code);
    const emptied = await t.run("rakuten.ranking", { genre_ids: [leaf] });
    expect(emptied.summary).toMatchObject({ changed: 1, failure_count: 0 });
    const r = await t.run("rakuten.item", { genre_ids: [leaf] });
    expect(r.summary).toMatchObject({ total_targets: 0, not_found: 0 });

    // Back in the ranking: its items are targets again.
    for (const code of codes) cat.restoreItem(code);
    expect((await t.run("rakuten.ranking", { genre_ids: [leaf] })).summary.changed).toBe(1);
    const back = await t.run("rakuten.item", { genre_ids: [leaf] });
    expect(back.summary.total_targets).toBe(codes.length);
  });
});
