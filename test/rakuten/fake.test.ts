import { describe, expect, it, onTestFinished } from "vitest";
import { FakeCatalogue } from "../../src/pipelines/rakuten/fake/catalogue.ts";
import {
  FAKE_APPLICATION_ID,
  rakutenFake,
  startRakutenFake,
} from "../../src/pipelines/rakuten/fake/start-fake.ts";

const ITEM = "/ichibams/api/IchibaItem/Search/20220601";
const RANKING = "/ichibaranking/api/IchibaItem/Ranking/20220601";
const GENRE = "/ichibagt/api/IchibaGenre/Search/20140222";
const TAG = "/ichibagt/api/IchibaTag/Search/20140222";
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9faf]/;
// biome-ignore lint/suspicious/noExplicitAny: answers are probed field by field in assertions.
type Body = Record<string, any>;

async function started(knobs: Parameters<typeof startRakutenFake>[0] = {}) {
  const f = await startRakutenFake({
    size: 40,
    ...knobs,
    knobs: { rateLimit: false, ...knobs.knobs },
  });
  onTestFinished(() => f.close());
  const get = async (
    path: string,
    query: Record<string, string | number> = {},
    appId = "app-1",
  ) => {
    const q = new URLSearchParams({
      applicationId: appId,
      accessKey: "k",
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    });
    const res = await fetch(`${f.url}${path}?${q}`);
    return {
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as Body,
    };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${f.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Body };
  };
  return { ...f, get, post, code: f.fake.catalogue.itemCodes(1)[0] as string };
}

describe("rakuten API fake", () => {
  it("generates the same Japanese catalogue from the same seed", () => {
    const a = new FakeCatalogue({ seed: 7, size: 200 });
    const b = new FakeCatalogue({ seed: 7, size: 200 });
    const c = new FakeCatalogue({ seed: 8, size: 200 });
    expect(a.itemCodes()).toEqual(b.itemCodes());
    const code = a.itemCodes(1)[0] as string;
    expect(a.item(code)).toEqual(b.item(code));
    expect(c.itemCodes()).not.toEqual(a.itemCodes());
    const item = a.item(code);
    expect(item?.itemName).toMatch(JAPANESE);
    expect(item?.shopName).toMatch(JAPANESE);
    expect(item?.mediumImageUrls.length).toBeGreaterThanOrEqual(2);
    expect(a.item("nosuch:1")).toBeUndefined();
  });

  it("writes captions and some catch copies with HTML tags and entities, as real shops do", () => {
    const cat = new FakeCatalogue({ size: 40 });
    const items = cat.itemCodes().map((c) => cat.item(c));
    expect(items.every((i) => /<br>.*&lt;.*&nbsp;/.test(i?.itemCaption ?? ""))).toBe(true);
    expect(items.some((i) => /&(nbsp|amp|gt);/.test(i?.catchcopy ?? ""))).toBe(true);
  });

  it("holds 100,000 items cheaply and ranks them quickly", () => {
    const started = performance.now();
    const cat = new FakeCatalogue({ size: 100_000 });
    const codes = cat.itemCodes();
    expect(codes).toHaveLength(100_000);
    expect(new Set(codes).size).toBe(100_000);
    expect(cat.item(codes[99_999] as string)?.itemCode).toBe(codes[99_999]);
    expect(cat.rankedIndexes(0).length).toBe(1020);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(() => new FakeCatalogue({ size: 100_001 })).toThrow(/1\.\.100000/);
  });

  it("answers Item Search in formatVersion 2 and 1 with Rakuten's types", async () => {
    const f = await started();
    const v2 = await f.get(ITEM, { itemCode: f.code, formatVersion: 2 });
    expect(v2.body).toMatchObject({ count: 1, page: 1, hits: 1, pageCount: 1 });
    const item = v2.body.Items[0];
    expect(typeof item.itemPrice).toBe("number");
    expect(typeof item.genreId).toBe("string");
    expect(typeof item.smallImageUrls[0]).toBe("string");
    const v1 = await f.get(ITEM, { itemCode: f.code });
    expect(v1.body.Items[0].Item.itemCode).toBe(f.code);
    expect(v1.body.Items[0].Item.smallImageUrls[0]).toHaveProperty("imageUrl");
    // Zero hits as Rakuten answers them: no Items key at all (or `Items: []` by the knob).
    const none = await f.get(ITEM, { itemCode: "nosuch:1", formatVersion: 2 });
    expect(none.body).toMatchObject({
      count: 0,
      page: 1,
      first: 0,
      last: 0,
      hits: 0,
      pageCount: 0,
    });
    expect(none.body).not.toHaveProperty("Items");
    f.fake.setKnobs({ zeroItems: "empty" });
    expect((await f.get(ITEM, { itemCode: "nosuch:1" })).body).toMatchObject({ Items: [] });
    const bad = await f.get(ITEM, { itemCode: f.code, hits: 31 });
    expect(bad).toMatchObject({
      status: 400,
      body: { errors: { errorCode: 400, errorMessage: "hits must be between 1 and 30" } },
    });
  });

  it("answers Ranking with numbers as strings, 30 per page in rank order", async () => {
    const f = await started({ size: 300 });
    const r = await f.get(RANKING, { formatVersion: 2 });
    expect(r.body.title).toMatch(/ランキング市場 総合/);
    expect(r.body.lastBuildDate).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0900$/);
    expect(r.body.Items).toHaveLength(30);
    expect(r.body.Items.map((i: { rank: number }) => i.rank)).toEqual(
      Array.from({ length: 30 }, (_, k) => k + 1),
    );
    expect(typeof r.body.Items[0].itemPrice).toBe("string");
    expect(r.body.Items[0].reviewAverage).toMatch(/^\d\.\d+$/);
    // As the real Ranking API: the affiliate rate as text, no giftFlag or tagIds.
    expect(r.body.Items[0].affiliateRate).toBe("1.0");
    expect(r.body.Items[0]).not.toHaveProperty("giftFlag");
    expect(r.body.Items[0]).not.toHaveProperty("tagIds");
    const v1 = await f.get(RANKING, { genreId: 100227 });
    expect(v1.body.Items[0].Item.rank).toBe(1);
    expect((await f.get(RANKING, { genreId: 123 })).status).toBe(404);
  });

  it("answers Genre Search and Tag Search in both formats", async () => {
    const f = await started();
    const root = await f.get(GENRE, { genreId: 0, formatVersion: 2 });
    expect(root.body.current).toEqual({ genreId: 0, genreName: "", genreLevel: 0 });
    expect(root.body.children.length).toBeGreaterThan(3);
    const leaf = await f.get(GENRE, { genreId: 100283 });
    expect(leaf.body.current.genreName).toBe("スイーツ・お菓子");
    expect(leaf.body.parents).toEqual([
      { parent: { genreId: 100227, genreName: "食品", genreLevel: 1 } },
    ]);
    expect(leaf.body.brothers[0]).toHaveProperty("brother");
    expect(leaf.body.tagGroups[0].tagGroup.tags[0]).toHaveProperty("tag.tagId");
    const leaf2 = await f.get(GENRE, { genreId: 100283, formatVersion: 2 });
    expect(leaf2.body.tagGroups.map((g: { tagGroupId: number }) => g.tagGroupId)).toContain(
      1000041,
    );
    const tag2 = await f.get(TAG, { tagId: "1000317,1000902", formatVersion: 2 });
    expect(tag2.body.tagGroups.map((g: { tagGroupId: number }) => g.tagGroupId)).toEqual([
      1000041, 1000064,
    ]);
    const tag1 = await f.get(TAG, { tagId: 1000317 });
    expect(tag1.body.tagGroups[0].tagGroup.tags[0]).toEqual({
      tag: { tagId: 1000317, tagName: "SS", parentTagId: 0 },
    });
    expect((await f.get(TAG, { tagId: 42 })).status).toBe(404);
  });

  it("enforces 1 request/second per application id with Rakuten's 429", async () => {
    const f = await started({ knobs: { rateLimit: true, retryAfterSeconds: 1 } });
    expect((await f.get(GENRE, { genreId: 0 })).status).toBe(200);
    const second = await f.get(GENRE, { genreId: 0 });
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("1");
    expect(second.body).toEqual({
      errors: {
        errorCode: 429,
        errorMessage: expect.stringContaining("number of allowed requests has been exceeded"),
      },
    });
    // Another application id has its own budget.
    expect((await f.get(GENRE, { genreId: 0 }, "app-2")).status).toBe(200);
    expect(f.fake.stats).toMatchObject({
      calls: 3,
      rateLimited: 1,
      byApplication: { "app-1": 2, "app-2": 1 },
    });
  });

  it("writes the old host's error bodies on the old paths: maintenance and bursts", async () => {
    const f = await started();
    await f.post("/_fake/knobs", { maintenance: true });
    const down = await f.get(`/services/api/IchibaItem/Search/20220601`, { itemCode: f.code });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      error: "service_unavailable",
      error_description: expect.stringMatching(/under maintenance/),
    });
    await f.post("/_fake/knobs", { maintenance: false, burst429: 1 });
    const burst = await f.get(`/services/api/IchibaItem/Search/20220601`, { itemCode: f.code });
    expect(burst.body.error).toBe("too_many_requests");
    expect((await f.get(ITEM, { itemCode: f.code })).status).toBe(200);
    const noApp = await fetch(`${f.url}/services/api/IchibaGenre/Search/20140222?genreId=0`);
    expect(await noApp.json()).toEqual({
      error: "wrong_parameter",
      error_description: "specify valid applicationId",
    });
    await f.post("/_fake/knobs", { malformed: 1 });
    const broken = await fetch(`${f.url}${ITEM}?applicationId=a&accessKey=k&itemCode=${f.code}`);
    await expect(broken.json()).rejects.toThrow();
    const stats = (await (await fetch(`${f.url}/_fake/stats`)).json()) as Record<string, number>;
    expect(stats).toMatchObject({ maintenance503: 1, burst429: 1, malformed: 1 });
  });

  it("lets tests change the catalogue over HTTP: price, review, image order, removal", async () => {
    const f = await started();
    const before = (await f.get(ITEM, { itemCode: f.code, formatVersion: 2 })).body.Items[0];
    await f.post("/_fake/change", { op: "price", itemCode: f.code, price: 1234 });
    await f.post("/_fake/change", { op: "review", itemCode: f.code, rating: 5 });
    await f.post("/_fake/change", { op: "reorder-images", itemCode: f.code });
    const after = (await f.get(ITEM, { itemCode: f.code, formatVersion: 2 })).body.Items[0];
    expect(after.itemPrice).toBe(1234);
    expect(after.reviewCount).toBe(before.reviewCount + 1);
    expect(after.mediumImageUrls).toEqual([...before.mediumImageUrls].reverse());
    await f.post("/_fake/change", { op: "remove", itemCode: f.code });
    expect((await f.get(ITEM, { itemCode: f.code })).body.count).toBe(0);
    const codes = (await (await fetch(`${f.url}/_fake/items?limit=5`)).json()) as {
      itemCodes: string[];
    };
    expect(codes.itemCodes).toHaveLength(5);
    expect(codes.itemCodes).not.toContain(f.code);
    const bad = await f.post("/_fake/change", { op: "price", itemCode: "nosuch:1", price: 1 });
    expect(bad.status).toBe(400);
    await f.post("/_fake/stats/reset", {});
    expect(f.fake.stats.calls).toBe(0);
  });

  it("starts as `tidemark fake rakuten` with the variables that point Tidemark at it", async () => {
    const lines: string[] = [];
    const running = await rakutenFake.start({
      port: 0,
      host: "127.0.0.1",
      dataDir: ".",
      print: (l) => lines.push(l),
    });
    try {
      for (const name of Object.keys(running.env)) expect(name).toMatch(/^TIDEMARK_/);
      expect(running.hints[0]).toContain(`RAKUTEN_APPLICATION_ID=${FAKE_APPLICATION_ID}`);
      expect(running.env.TIDEMARK_RAKUTEN_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.env.TIDEMARK_EMBEDDINGS_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(
        `${running.env.TIDEMARK_RAKUTEN_URL}${GENRE}?applicationId=${FAKE_APPLICATION_ID}&accessKey=k&genreId=0`,
      );
      expect(res.status).toBe(200);
      expect(running.hints.length).toBeGreaterThan(0);
      // The embeddings URL is used only by the openai-compatible provider: a variable selects it.
      expect(running.env.TIDEMARK_EMBEDDINGS_PROVIDER).toBe("openai-compatible");
    } finally {
      await running.close();
    }
  });
});
