// Odd answers from Mercari: only a real "not found" deletes a row, a body that is no search
// answer is an error rather than an empty last page, and one unreadable hit (a price no row can
// hold, a wild timestamp) is skipped instead of failing its page or the database write.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { failedAnswerCount } from "../../src/pipelines/mercari/client/blocked.ts";
import { createMercariClient } from "../../src/pipelines/mercari/client/mercari-client.ts";
import type { MercariClient } from "../../src/pipelines/mercari/client/types.ts";
import { searchItemJson } from "../../src/pipelines/mercari/fake/responses.ts";
import {
  type StartedMercariFake,
  startMercariFakeServer,
} from "../../src/pipelines/mercari/fake/start-fake.ts";
import { fakeClientSettings } from "./support/client-settings.ts";

let fake: StartedMercariFake;

function client(): MercariClient {
  return createMercariClient({
    settings: fakeClientSettings(fake.url, { retryMaxAttempts: 2 }),
    logger: silentLogger(),
    retry: { sleep: async () => {} },
  });
}

/** The next answer of the fake is this JSON with status 200. */
function answerOnce(body: object): void {
  fake.server.faults.set({ statusSequence: [{ status: 200, body }] });
}

beforeEach(async () => {
  fake = await startMercariFakeServer({
    start: "2026-03-01T00:00:00.000Z",
    autoGroups: false,
    groups: [{ keyword: "Nintendo Switch", count: 3, priceMin: 15_000, priceMax: 30_000 }],
  });
});
afterEach(async () => {
  await fake.close();
});

describe("Mercari client: odd answers", () => {
  it("an item whose description mentions RecordNotFound is no deleted item", async () => {
    const l = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    l.description = 'error "RecordNotFoundException" in my old app; item is fine';
    expect(await client().getItem(l.id)).toMatchObject({ id: l.id, status: "on_sale" });
    const p = fake.fake.catalogue.list("Nintendo Switch", { price: 22_000, shop: true });
    p.description = "RecordNotFound";
    expect(await client().getDetail(p.id)).toMatchObject({ id: p.id, status: "on_sale" });
  });

  it("a 200 error answer other than RecordNotFound throws instead of saying gone", async () => {
    const l = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    answerOnce({ result: "error", errors: [{ code: "InternalServerError" }], meta: {} });
    await expect(client().getItem(l.id)).rejects.toThrow(/result error \(InternalServerError\)/);
    answerOnce({ result: "error", errors: [{ code: "RecordNotFoundException" }], meta: {} });
    expect(await client().getItem(l.id)).toBe("not_found");
  });

  it("a 404 whose body is not Mercari's not-found answer fails the request instead of saying gone", async () => {
    const l = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    const p = fake.fake.catalogue.list("Nintendo Switch", { price: 22_000, shop: true });
    const counted = failedAnswerCount("detail", "http_404_not_mercari");
    for (const body of [{ message: "error" }, {}, ""]) {
      // Two attempts (retry_max_attempts 2): both answer the gateway's 404.
      fake.server.faults.set({ statusSequence: [404, 404].map((status) => ({ status, body })) });
      await expect(client().getItem(l.id)).rejects.toThrow(
        /after 2 attempts: HTTP 404 without Mercari's not-found answer \(errors\[\]\.code RecordNotFoundException\)/,
      );
    }
    fake.server.faults.set({ statusSequence: [{ status: 404, body: { message: "error" } }] });
    // Retried: the second attempt reaches the fake, which knows the product.
    expect(await client().getDetail(p.id)).toMatchObject({ id: p.id, status: "on_sale" });
    expect(failedAnswerCount("detail", "http_404_not_mercari")).toBe(counted + 3);
    fake.fake.knobs.gateway404 = true;
    await expect(client().getDetail(p.id)).rejects.toThrow(/HTTP 404 without Mercari's not-found/);
    fake.fake.knobs.gateway404 = false;
    // Mercari's own answer still means gone.
    fake.fake.catalogue.remove(l.id);
    expect(await client().getItem(l.id)).toBe("not_found");
  });

  it("an HTML 404 is a block page, not a deleted item", async () => {
    const l = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    const page = {
      status: 404,
      body: "<html>blocked</html>",
      headers: { "content-type": "text/html" },
    };
    fake.server.faults.set({ statusSequence: [page, page] });
    await expect(client().getItem(l.id)).rejects.toMatchObject({ reason: "html_block_page" });
  });

  it("a search body without meta is an error, not an empty last page", async () => {
    for (const body of [{}, { error: "busy" }, { items: [] }]) {
      answerOnce(body);
      await expect(client().search({ keyword: "Nintendo Switch" })).rejects.toThrow();
    }
    expect((await client().search({ keyword: "Nintendo Switch" })).items).toHaveLength(3);
  });

  it("skips a hit with a price no row can hold or a wild timestamp, keeping the rest", async () => {
    for (let i = 0; i < 3; i++) fake.fake.catalogue.list("Nintendo Switch", { price: 20_000 });
    const hits = fake.fake.catalogue.all().slice(0, 6).map(searchItemJson);
    const bad = [
      { ...hits[0], price: "3000000000" },
      { ...hits[1], price: "-5" },
      { ...hits[2], price: "12.5" },
      { ...hits[3], created: "99999999999999999" },
      { ...hits[4], price: null },
    ];
    answerOnce({ items: [...bad, hits[5]], meta: { nextPageToken: "", numFound: "6" } });
    const page = await client().search({ keyword: "Nintendo Switch" });
    expect(page.items.map((i) => i.id)).toEqual([hits[5]?.id]);
    // Zero and a price as a string are fine.
    answerOnce({ items: [{ ...hits[0], price: "0" }], meta: { nextPageToken: "" } });
    expect((await client().search({ keyword: "Nintendo Switch" })).items[0]?.price).toBe(0);
  });

  it("a Shops product whose updateTime is no time fails instead of storing it as a sold date", async () => {
    const p = fake.fake.catalogue.list("Nintendo Switch", { price: 22_000, shop: true });
    const path = `/v1/marketplaces/shops/products/${p.id}`;
    const body = { name: p.id, displayName: p.name, price: "22000", productTags: ["sold_out"] };
    fake.server.faults.set({
      statusSequence: [{ status: 200, body: { ...body, createTime: "x", updateTime: "soon" } }],
      statusPath: path,
    });
    await expect(client().getShopsProduct(p.id)).rejects.toThrow(/updateTime/);
    fake.server.faults.set({
      statusSequence: [
        {
          status: 200,
          body: {
            ...body,
            createTime: "2026-03-01T00:00:00Z",
            updateTime: "2026-03-01T09:00:00+09:00",
          },
        },
      ],
    });
    expect(await client().getShopsProduct(p.id)).toMatchObject({
      status: "sold_out",
      updated: "2026-03-01T00:00:00.000Z",
    });
  });

  it("an item detail with a price no row can hold fails instead of being written", async () => {
    const l = fake.fake.catalogue.list("Nintendo Switch", { price: 21_000, shop: false });
    l.price = 3_000_000_000;
    await expect(client().getItem(l.id)).rejects.toThrow(/price/);
  });
});
