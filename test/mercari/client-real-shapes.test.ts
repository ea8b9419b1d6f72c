// What Mercari's recorded answers look like, through the client: a no-price hit is no price
// (search, item detail, Shops product), a Shops hit's "0" seller is no id, a Shops product on a
// running time sale costs its sale price, and the exclude keyword goes into the search.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { createMercariClient } from "../../src/pipelines/mercari/client/mercari-client.ts";
import type { MercariClient } from "../../src/pipelines/mercari/client/types.ts";
import { searchItemJson } from "../../src/pipelines/mercari/fake/responses.ts";
import {
  type StartedMercariFake,
  startMercariFakeServer,
} from "../../src/pipelines/mercari/fake/start-fake.ts";
import { fakeClientSettings } from "./support/client-settings.ts";

const START = "2026-03-01T00:00:00.000Z";
let fake: StartedMercariFake;

function client(now = new Date(START)): MercariClient {
  return createMercariClient({
    settings: fakeClientSettings(fake.url, { retryMaxAttempts: 1 }),
    logger: silentLogger(),
    retry: { sleep: async () => {} },
    clock: { now: () => now },
  });
}

/** The next answer of the fake at `path` is this JSON with status 200. */
function answerOnce(body: object, path?: string): void {
  fake.server.faults.set({ statusSequence: [{ status: 200, body }], statusPath: path });
}

beforeEach(async () => {
  fake = await startMercariFakeServer({ start: START, autoGroups: false, groups: [] });
});
afterEach(async () => {
  await fake.close();
});

describe("Mercari client: recorded shapes", () => {
  it('a hit with "isNoPrice": true has no price, never ¥9,999,999', async () => {
    const cat = fake.fake.catalogue;
    const priced = cat.list("sharpnel", { price: 12_000, shop: false });
    const none = cat.list("sharpnel", { price: 12_000, shop: false, noPrice: true });
    const hit = searchItemJson(none);
    expect(hit).toMatchObject({ price: "9999999", isNoPrice: true });
    const page = await client().search({ keyword: "sharpnel" });
    const byId = new Map(page.items.map((i) => [i.id, i]));
    expect(byId.get(priced.id)?.price).toBe(12_000);
    expect(byId.get(none.id)?.price).toBeNull();
    // The item detail and the Shops product pages show the placeholder too: no price either.
    expect(await client().getItem(none.id)).toMatchObject({ price: null });
    const shopNone = cat.list("sharpnel", { price: 8000, shop: true, noPrice: true });
    expect(await client().getDetail(shopNone.id)).toMatchObject({ price: null });
  });

  it('a Shops hit\'s sellerId "0" is no seller; its product page names the shop', async () => {
    const p = fake.fake.catalogue.list("sharpnel", { price: 9000, shop: true });
    const raw = searchItemJson(p);
    expect(raw).toMatchObject({ sellerId: "0", shopName: "", itemType: "ITEM_TYPE_BEYOND" });
    expect(raw).not.toHaveProperty("shop");
    const [hit] = (await client().search({ keyword: "sharpnel" })).items;
    expect(hit).toMatchObject({ id: p.id, sellerType: "shop", sellerId: null });
    expect(await client().getDetail(p.id)).toMatchObject({ sellerId: p.sellerId });
    // A regular item's "0" is no id either.
    const u = fake.fake.catalogue.list("sharpnel", { price: 9000, shop: false });
    answerOnce({
      items: [{ ...searchItemJson(u), sellerId: "0" }],
      meta: { nextPageToken: "", numFound: "1" },
    });
    expect((await client().search({ keyword: "sharpnel" })).items[0]?.sellerId).toBeNull();
  });

  it("a Shops product on a running time sale costs its sale price; before or after, its list price", async () => {
    const p = fake.fake.catalogue.list("sharpnel", {
      price: 62_700,
      shop: true,
      timeSalePrice: 59_565,
    });
    expect(await client().getDetail(p.id)).toMatchObject({ price: 59_565 });
    const path = `/v1/marketplaces/shops/products/${p.id}`;
    const body = {
      name: p.id,
      displayName: p.name,
      price: "62700",
      createTime: "2026-02-01T00:00:00Z",
      updateTime: "2026-02-01T00:00:00Z",
    };
    const sale = {
      price: "59565",
      startTime: "2026-03-02T00:00:00Z",
      endTime: "2026-03-03T00:00:00Z",
    };
    for (const [now, price] of [
      ["2026-03-01T12:00:00Z", 62_700],
      ["2026-03-02T12:00:00Z", 59_565],
      ["2026-03-03T00:00:00Z", 62_700],
    ] as const) {
      answerOnce({ ...body, timeSaleDetails: sale }, path);
      expect(await client(new Date(now)).getShopsProduct(p.id)).toMatchObject({ price });
    }
  });

  it("the exclude keyword goes into the search condition, and the search leaves those out", async () => {
    const cat = fake.fake.catalogue;
    const body = cat.list("sharpnel", { name: "SHARPNEL パーカー", price: 9000, shop: false });
    cat.list("sharpnel", { name: "SHARPNEL ステッカー", price: 900, shop: false });
    const page = await client().search({ keyword: "sharpnel", excludeKeyword: "ステッカー" });
    expect(page.items.map((i) => i.id)).toEqual([body.id]);
    const sent = fake.server.requests.filter((r) => r.path === "/v2/entities:search").at(-1);
    expect(JSON.parse(sent?.body ?? "{}").searchCondition.excludeKeyword).toBe("ステッカー");
  });
});
