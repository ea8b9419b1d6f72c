// A 200 answer that is not the documented shape (`{}` from an outage page or a proxy) is a
// failure of that target, never "empty" or "gone": nothing stored is replaced on its strength.

import { RawStore } from "tidemark/kit";
import { expect, it } from "vitest";
import { RankRepo } from "../../src/pipelines/rakuten/repos/rank-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness, type RakutenHarness } from "./support/rakuten-harness.ts";

const GENRE = 100227;

type Failure = { target: string; kind: string; message: string };

/** The ranking's current raw document, as `tidemark rakuten raw ranking <genre>` shows it. */
async function currentRanking(t: RakutenHarness, genre: number) {
  const raw = new RawStore(t.rt.blobs, t.rt.config.env);
  const target = { source: "rakuten", entity: "ranking", sourceId: String(genre) };
  const versions = await raw.versions(target);
  const row = (await t.staging("ranking")).find((s) => s.source_id === String(genre));
  const current = versions.find((v) => v.contentHash === row?.content_hash);
  if (current === undefined) throw new Error(`no current raw ranking of ${genre}`);
  const doc = JSON.parse(await raw.getText(current.key)) as { items: unknown[] };
  return { versions: versions.length, items: doc.items.length };
}

/** Everything an item run writes, to compare before and after. */
async function itemState(t: RakutenHarness) {
  return {
    items: await t.db.selectFrom("apl.item").selectAll().orderBy("id").execute(),
    market: await t.db.selectFrom("apl.market_snapshot").selectAll().orderBy("id").execute(),
    reviews: await t.db.selectFrom("apl.review_snapshot").selectAll().orderBy("id").execute(),
    staging: await t.staging("item"),
  };
}

describeEachDialect("rakuten jobs: an answer of the wrong shape", (h) => {
  it("a ranking `{}` fails the genre naming the request and Items; the stored ranking and rakuten.item's targets stay", async () => {
    const t = await openRakutenHarness(h);
    const first = await t.run("rakuten.ranking", { genre_ids: [GENRE] });
    expect(first.summary).toMatchObject({ changed: 1, failure_count: 0 });
    const before = {
      staging: await t.staging("ranking"),
      ranks: await t.db.selectFrom("apl.rank_snapshot").selectAll().orderBy("id").execute(),
      raw: await currentRanking(t, GENRE),
      targets: await new RankRepo(t.db).currentItemCodes([GENRE]),
    };
    expect(before.raw.items).toBeGreaterThan(0);
    expect(before.targets).toHaveLength(before.raw.items);
    t.blobs.rawPuts.length = 0;

    t.fake.setKnobs({ wrongShape: 1 });
    const r = await t.run("rakuten.ranking", { genre_ids: [GENRE] });
    expect(r.status).toBe("failed");
    expect(t.fake.stats.wrongShape).toBe(1);
    expect(r.summary).toMatchObject({ failure_count: 1, changed: 0 });
    const failure = (r.summary.failures as Failure[])[0]!;
    expect(failure).toMatchObject({ target: String(GENRE), kind: "fetch" });
    expect(failure.message).toContain(`Ranking/20220601?genreId=${GENRE}`);
    expect(failure.message).toContain("Items: must be a list");
    expect(t.blobs.rawPuts).toEqual([]);
    expect(await t.staging("ranking")).toEqual(before.staging);
    expect(await t.db.selectFrom("apl.rank_snapshot").selectAll().orderBy("id").execute()).toEqual(
      before.ranks,
    );
    expect(await currentRanking(t, GENRE)).toEqual(before.raw);
    expect(await new RankRepo(t.db).currentItemCodes([GENRE])).toEqual(before.targets);
    const items = await t.run("rakuten.item", { genre_ids: [GENRE] });
    expect(items.summary).toMatchObject({ total_targets: before.targets.length });
  });

  it("an item search `{}` is a failure, never not_found: more than max_failure_rate of them fail the run", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(5);
    await t.run("rakuten.item", { item_codes: codes });
    const before = await itemState(t);
    t.blobs.rawPuts.length = 0;

    t.fake.setKnobs({ wrongShape: 5 });
    const all = await t.run("rakuten.item", { item_codes: codes });
    expect(all.status).toBe("failed");
    expect(all.error).toContain("5 of 5 targets failed");
    expect(all.summary).toMatchObject({ failure_count: 5, not_found: 0 });
    const failures = all.summary.failures as Failure[];
    expect(failures.every((f) => f.kind === "fetch")).toBe(true);
    const first = failures.find((f) => f.target === codes[0])!;
    expect(first.message).toContain(`Search/20220601?itemCode=${encodeURIComponent(codes[0]!)}`);
    expect(first.message).toContain("Items: no items, and count is not 0");
    expect(t.blobs.rawPuts).toEqual([]);
    expect(await itemState(t)).toEqual(before);

    // One of five within max_failure_rate: the run succeeds, the failure is counted as one.
    t.fake.setKnobs({ wrongShape: 1 });
    const one = await t.run("rakuten.item", {
      item_codes: codes,
      concurrency: 1,
      max_failure_rate: 0.5,
    });
    expect(one.status, one.error ?? "").toBe("succeeded");
    expect(one.summary).toMatchObject({ failure_count: 1, not_found: 0, unchanged_skipped: 4 });
    expect(await itemState(t)).toEqual(before);
  });

  it("only the zero-hit answer (count 0, Items absent or []) means not_found", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(2);
    const gone = codes[0]!;
    t.catalogue.removeItem(gone);
    for (const zeroItems of ["absent", "empty"] as const) {
      t.fake.setKnobs({ zeroItems });
      const r = await t.run("rakuten.item", { item_codes: codes, max_failure_rate: 0 });
      expect(r.status, r.error ?? "").toBe("succeeded");
      expect(r.summary).toMatchObject({ not_found: 1, failure_count: 0 });
    }
    // The same answer without `count: 0` (Items [] but count 1) is a failure.
    t.hooks.rewriteBody = (text) => text.replace('"count":0', '"count":1');
    const r = await t.run("rakuten.item", { item_codes: [gone] });
    expect(r.status).toBe("failed");
    expect(r.summary).toMatchObject({ not_found: 0, failure_count: 1 });
  });
});

describeEachDialect("rakuten jobs: a genre or tag answer without its data", (h) => {
  it("fails that target (never not_found), writing nothing", async () => {
    const t = await openRakutenHarness(h);
    t.hooks.rewriteBody = () => "{}";
    const tag = await t.run("rakuten.tag", { tag_ids: [1000317] });
    expect(tag.status).toBe("failed");
    expect(tag.summary).toMatchObject({ failure_count: 1, not_found: 0 });
    expect(JSON.stringify(tag.summary.failures)).toContain("tagGroups: must be a list");
    const genre = await t.run("rakuten.genre", { genre_ids: [GENRE] });
    expect(genre.status).toBe("failed");
    expect(JSON.stringify(genre.summary.failures)).toContain("current");
    expect(await t.db.selectFrom("apl.tag").selectAll().execute()).toEqual([]);
    expect(await t.db.selectFrom("apl.genre").selectAll().execute()).toEqual([]);
    expect(await t.staging("tag")).toEqual([]);
  });
});

describeEachDialect("rakuten jobs: numbers an item cannot hold", (h) => {
  it("are that target's fetch failure naming the field; the item and its snapshots stay", async () => {
    const t = await openRakutenHarness(h);
    const [code] = t.catalogue.itemCodes(1) as [string];
    await t.run("rakuten.item", { item_codes: [code] });
    const before = await itemState(t);
    const cases: Array<[string, string]> = [
      ["itemPrice", '"9007199254740993"'],
      ["itemPrice", "9007199254740993"],
      ["itemPrice", "1e308"],
      ["itemPrice", "-5"],
      ["itemPrice", '"1.5"'],
      ["reviewAverage", "1e300"],
      ["reviewAverage", '"5.5"'],
    ];
    for (const [field, value] of cases) {
      const pattern = new RegExp(`"${field}":("[^"]*"|[^,}]*)`);
      t.hooks.rewriteBody = (text) => text.replace(pattern, `"${field}":${value}`);
      const r = await t.run("rakuten.item", { item_codes: [code] });
      expect(r.status, `${field} ${value}`).toBe("failed");
      const failure = (r.summary.failures as Failure[])[0]!;
      expect(failure.kind).toBe("fetch");
      expect(failure.message, `${field} ${value}`).toContain(`Items[0].${field}: wrong value`);
      expect(await itemState(t), `${field} ${value}`).toEqual(before);
    }
    t.hooks.rewriteBody = undefined;
    const again = await t.run("rakuten.item", { item_codes: [code] });
    expect(again.summary).toMatchObject({ unchanged_skipped: 1, failure_count: 0 });
  });

  it("in a ranking entry fail that genre; the stored ranking stays", async () => {
    const t = await openRakutenHarness(h);
    await t.run("rakuten.ranking", { genre_ids: [GENRE] });
    const before = await t.staging("ranking");
    t.hooks.rewriteBody = (text) => text.replace(/"itemPrice":"\d+"/, '"itemPrice":"-5"');
    const r = await t.run("rakuten.ranking", { genre_ids: [GENRE] });
    expect(r.status).toBe("failed");
    expect(JSON.stringify(r.summary.failures)).toContain("Items[0].itemPrice: wrong value");
    expect(await t.staging("ranking")).toEqual(before);
  });
});
