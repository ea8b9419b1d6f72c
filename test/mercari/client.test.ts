import type { SharedTokenLimiter } from "tidemark/kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { createDpopSigner, type DpopSigner } from "../../src/pipelines/mercari/client/dpop.ts";
import {
  createMercariClient,
  type MercariClientOptions,
} from "../../src/pipelines/mercari/client/mercari-client.ts";
import {
  isMercariBlocked,
  isShopsId,
  MercariBlockedError,
  type MercariClient,
  type SearchItem,
} from "../../src/pipelines/mercari/client/types.ts";
import {
  type StartedMercariFake,
  startMercariFakeServer,
} from "../../src/pipelines/mercari/fake/start-fake.ts";
import type { MercariSettings } from "../../src/pipelines/mercari/settings.ts";
import { fakeClientSettings } from "./support/client-settings.ts";

const START = "2026-03-01T00:00:00.000Z";
let fake: StartedMercariFake;

function settings(over: Partial<MercariSettings> = {}): MercariSettings {
  return fakeClientSettings(fake.url, over);
}

function client(
  over: Partial<MercariSettings> = {},
  options: Partial<MercariClientOptions> = {},
): MercariClient {
  return createMercariClient({
    settings: settings(over),
    logger: silentLogger(),
    retry: { sleep: async () => {} },
    ...options,
  });
}

async function searchAll(c: MercariClient, keyword: string): Promise<SearchItem[]> {
  const items: SearchItem[] = [];
  let token: string | null = "";
  while (token !== null) {
    const page = await c.search({ keyword, pageToken: token });
    items.push(...page.items);
    token = page.nextPageToken;
  }
  return items;
}

beforeEach(async () => {
  fake = await startMercariFakeServer({
    start: START,
    autoGroups: false,
    groups: [
      {
        keyword: "Nintendo Switch",
        count: 130,
        categoryId: 701,
        priceMin: 15_000,
        priceMax: 30_000,
      },
    ],
  });
});
afterEach(async () => {
  await fake.close();
});

describe("Mercari client against the fake", () => {
  it("searches newest first over every page with x-platform web and a fresh DPoP proof", async () => {
    const items = await searchAll(client(), "Nintendo Switch");
    expect(items).toHaveLength(130);
    expect(new Set(items.map((i) => i.id)).size).toBe(130);
    const created = items.map((i) => i.created);
    expect([...created].sort().reverse()).toEqual(created);
    const searches = fake.server.requests.filter((r) => r.path === "/v2/entities:search");
    expect(searches).toHaveLength(3);
    expect(searches.every((r) => r.headers["x-platform"] === "web")).toBe(true);
    expect(new Set(searches.map((r) => r.headers.dpop)).size).toBe(3);
    const body = JSON.parse(searches[1]!.body);
    expect(body).toMatchObject({ pageToken: "v1:1", pageSize: 50 });
    expect(body.searchCondition).toMatchObject({ sort: "SORT_CREATED_TIME", order: "ORDER_DESC" });
    expect(fake.fake.stats.rejected).toEqual({});
  });

  it("normalises items: integer price, status, seller type, ISO times, item page", async () => {
    const items = await searchAll(client(), "nintendo switch");
    const shop = items.find((i) => i.sellerType === "shop");
    const user = items.find((i) => i.sellerType === "user");
    expect(shop && isShopsId(shop.id)).toBe(true);
    expect(shop?.url).toBe(`https://jp.mercari.com/shops/product/${shop?.id}`);
    expect(user?.id).toMatch(/^m\d{11}$/);
    expect(user?.url).toBe(`https://jp.mercari.com/item/${user?.id}`);
    for (const i of items) {
      // A hit showing no price has none (never the placeholder).
      expect(i.price === null || Number.isInteger(i.price)).toBe(true);
      expect(["on_sale", "sold_out", "trading"]).toContain(i.status);
      expect(i.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      expect(i.thumbnailUrl).toMatch(/^https:\/\//);
      expect(i.categoryId).toBe(701);
    }
  });

  it("follows nextPageToken past a short page; filters go to the request", async () => {
    fake.fake.knobs.shortPages = true;
    const c = client();
    const first = await c.search({ keyword: "Nintendo Switch" });
    const second = await c.search({ keyword: "Nintendo Switch", pageToken: first.nextPageToken! });
    expect(second.items.length).toBeLessThan(50);
    expect(second.nextPageToken).not.toBeNull();
    expect(await searchAll(c, "Nintendo Switch")).toHaveLength(130);
    const cheap = await c.search({
      keyword: "Nintendo Switch",
      priceMax: 20_000,
      status: ["on_sale"],
      categoryId: 701,
      pageSize: 200,
    });
    expect(cheap.items.length).toBeGreaterThan(0);
    expect(
      cheap.items.every((i) => i.price !== null && i.price <= 20_000 && i.status === "on_sale"),
    ).toBe(true);
    const other = await c.search({ keyword: "Nintendo Switch", categoryId: 5 });
    expect(other).toEqual({ items: [], nextPageToken: null, numFound: 0 });
  });

  it("reads item details and Shops products; a deleted listing is not_found", async () => {
    const c = client();
    const listing = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    const product = fake.fake.catalogue.list("Nintendo Switch", { price: 25_000, shop: true });
    expect(await c.getItem(listing.id)).toMatchObject({
      id: listing.id,
      price: 21_000,
      status: "on_sale",
      sellerType: "user",
    });
    expect(await c.getDetail(product.id)).toMatchObject({
      id: product.id,
      price: 25_000,
      status: "on_sale",
      sellerType: "shop",
    });
    fake.fake.catalogue.advance(3_600_000);
    fake.fake.catalogue.sell(listing.id, "trading");
    fake.fake.catalogue.sell(product.id);
    const sold = await c.getDetail(listing.id);
    expect(sold).toMatchObject({ status: "trading", updated: "2026-03-01T01:00:00.000Z" });
    expect(await c.getShopsProduct(product.id)).toMatchObject({
      status: "sold_out",
      updated: "2026-03-01T01:00:00.000Z",
    });
    fake.fake.catalogue.remove(listing.id);
    fake.fake.catalogue.remove(product.id);
    expect(await c.getItem(listing.id)).toBe("not_found");
    expect(await c.getDetail(product.id)).toBe("not_found");
    expect(await c.getItem("m99999999999")).toBe("not_found");
    await expect(c.getItem("../etc")).rejects.toThrow(/not a Mercari item id/);
  });

  it("retries 5xx and 429 with a new proof for every attempt", async () => {
    fake.server.faults.set({ statusSequence: [503, 429] });
    const page = await client().search({ keyword: "Nintendo Switch" });
    expect(page.items).toHaveLength(50);
    const proofs = fake.server.requests.map((r) => r.headers.dpop);
    expect(proofs).toHaveLength(3);
    expect(new Set(proofs).size).toBe(3);
    expect(fake.fake.stats.rejected).toEqual({});
  });

  it("takes a shared rate-limit token before every attempt, unless the limit is 0", async () => {
    const taken: string[] = [];
    const limiter: SharedTokenLimiter = {
      async acquire(key, limit) {
        taken.push(`${key} ${limit.ratePerSecond}/${limit.burst}`);
      },
    };
    fake.server.faults.set({ statusSequence: [503] });
    await client({ requestsPerSecond: 2 }, { sharedLimiter: limiter }).search({ keyword: "x" });
    const host = new URL(fake.url).host;
    expect(taken).toEqual([`mercari:${host} 2/2`, `mercari:${host} 2/2`]);
    await client({ requestsPerSecond: 0 }, { sharedLimiter: limiter }).search({ keyword: "x" });
    expect(taken).toHaveLength(2);
  });
});

describe("DPoP rejection", () => {
  async function rejectedBy(signer: DpopSigner): Promise<unknown> {
    return client({}, { signer })
      .search({ keyword: "Nintendo Switch" })
      .catch((e: unknown) => e);
  }

  it("a tampered proof is answered 401", async () => {
    const real = await createDpopSigner();
    const err = await rejectedBy({
      async proof(method, url) {
        const [h, p, s] = (await real.proof(method, url)).split(".");
        const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
        const forged = Buffer.from(JSON.stringify({ ...claims, jti: "other" })).toString(
          "base64url",
        );
        return `${h}.${forged}.${s}`;
      },
    });
    expect(err).toMatchObject({ status: 401 });
    expect(fake.fake.stats.rejected).toEqual({ bad_signature: 1 });
  });

  it("a replayed proof is answered 401", async () => {
    const real = await createDpopSigner();
    let kept: string | undefined;
    const replaying: DpopSigner = {
      async proof(method, url) {
        kept ??= await real.proof(method, url);
        return kept;
      },
    };
    const c = client({}, { signer: replaying });
    await c.search({ keyword: "Nintendo Switch" });
    await expect(c.search({ keyword: "Nintendo Switch" })).rejects.toMatchObject({ status: 401 });
    expect(fake.fake.stats.rejected).toEqual({ jti_replayed: 1 });
  });

  it("a stale proof is answered 401", async () => {
    const err = await rejectedBy(await createDpopSigner(() => Date.now() - 5 * 60_000));
    expect(err).toMatchObject({ status: 401 });
    expect(fake.fake.stats.rejected).toEqual({ stale_iat: 1 });
  });
});

describe("block detection", () => {
  it("403 with an HTML page after the retries is a blocked error", async () => {
    fake.fake.knobs.block = "forbidden";
    const err = await client()
      .search({ keyword: "Nintendo Switch" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MercariBlockedError);
    expect(isMercariBlocked(err)).toBe(true);
    expect(err).toMatchObject({ reason: "http_403", exitCode: 1 });
    expect((err as Error).message).toMatch(/^blocked: http 403/);
    expect(fake.server.requests).toHaveLength(3);
    await expect(client().getItem("m12345678901")).rejects.toMatchObject({ reason: "http_403" });
  });

  it("an HTML page with 200 is a blocked error, not a bad payload", async () => {
    fake.fake.knobs.block = "html";
    await expect(client().search({ keyword: "Nintendo Switch" })).rejects.toMatchObject({
      reason: "html_block_page",
    });
  });

  it("429 that persists after the retries is a blocked error", async () => {
    fake.fake.knobs.rateLimitRate = 1;
    await expect(client().search({ keyword: "Nintendo Switch" })).rejects.toMatchObject({
      reason: "http_429",
    });
    expect(fake.server.requests).toHaveLength(3);
  });

  it("a block that lifts within the retries is no error", async () => {
    fake.server.faults.set({
      statusSequence: [
        { status: 403, body: "<html>blocked</html>", headers: { "content-type": "text/html" } },
      ],
    });
    expect((await client().search({ keyword: "Nintendo Switch" })).items).toHaveLength(50);
  });

  it("empty mode answers an empty last page: only the caller knows it had results", async () => {
    fake.fake.knobs.block = "empty";
    const page = await client().search({ keyword: "Nintendo Switch" });
    expect(page).toEqual({ items: [], nextPageToken: null, numFound: 0 });
  });
});
