// Migration 0002 on rows stored before it: each row gets its product's current setting as the
// one it was found under (so the next crawl keeps it), a "0" seller (every Shops hit's) becomes
// unknown and is picked for a detail check, and a placeholder price never reaches cheapest.
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import * as m0001 from "../../src/pipelines/mercari/migrations/0001-mercari.ts";
import * as m0002 from "../../src/pipelines/mercari/migrations/0002-found-setting.ts";
import { CrawlResultRepo } from "../../src/pipelines/mercari/repos/crawl-result-repo.ts";
import { ResultQueries } from "../../src/pipelines/mercari/repos/result-queries.ts";
import { settingFingerprint } from "../../src/pipelines/mercari/stages/list/match.ts";
import type { MercariTables } from "../../src/pipelines/mercari/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";

const NOW = "2026-03-01T00:00:00.000Z";

function row(externalId: string, price: number, sellerType: number, sellerId: string | null) {
  return {
    product_id: 1,
    external_id: externalId,
    name: `listing ${externalId}`,
    price,
    selling_url: `https://jp.mercari.com/item/${externalId}`,
    image_url: "",
    selling_status: 1,
    seller_type: sellerType,
    seller_id: sellerId,
    created_at: NOW,
    updated_at: NOW,
  };
}

describeEachDialect("mercari migration 0002 (found setting)", (h) => {
  it("fingerprints old rows under the current setting and repairs the '0' sellers", async () => {
    const raw = (await h.freshDatabase()).kysely;
    await m0001.up(raw);
    // Before 0002 the tables have neither new column: written through an untyped view.
    const before = raw as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await before
      .insertInto("products")
      .values({ name: "CdG", created_at: NOW, updated_at: NOW })
      .execute();
    await before
      .insertInto("mercari_crawl_settings")
      .values({
        product_id: 1,
        keyword: "comme des garcons",
        min_price: 1000,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    await before
      .insertInto("mercari_crawl_results")
      .values([
        row("uU4Ahinr6rGNFLNYQpa9E7", 5000, 2, "0"),
        row("m14002428417", 6000, 1, "431657643"),
        row("m14002428418", 9_999_999, 1, "431657644"),
      ])
      .execute();
    await m0002.up(raw);

    const db = raw as unknown as Kysely<MercariTables>;
    const rows = await db.selectFrom("mercari_crawl_results").selectAll().orderBy("id").execute();
    const fp = settingFingerprint({
      keyword: "comme des garcons",
      category_id: null,
      min_price: 1000,
      max_price: null,
      exclude_keyword: null,
    });
    expect(rows.map((r) => r.setting_fingerprint)).toEqual([fp, fp, fp]);
    expect(rows.map((r) => r.seller_id)).toEqual([null, "431657643", "431657644"]);
    // The next crawl sends the repaired row to a detail check (its shop gets named there).
    const unknown = await new CrawlResultRepo(db).sellerUnknown(1);
    expect(unknown.map((r) => r.external_id)).toEqual(["uU4Ahinr6rGNFLNYQpa9E7"]);
    const setting = await db.selectFrom("mercari_crawl_settings").selectAll().executeTakeFirst();
    expect(setting?.exclude_keyword).toBeNull();
    // A placeholder price stored before is no price: cheapest leaves it out.
    const cheapest = await new ResultQueries(db).cheapest(1, 10);
    expect(cheapest.map((r) => r.price)).toEqual([5000, 6000]);
  });
});
