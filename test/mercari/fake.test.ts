import { afterEach, describe, expect, it } from "vitest";
import { createDpopSigner } from "../../src/pipelines/mercari/client/dpop.ts";
import { Catalogue } from "../../src/pipelines/mercari/fake/catalogue.ts";
import type { CatalogueQuery } from "../../src/pipelines/mercari/fake/catalogue-types.ts";
import { searchPage } from "../../src/pipelines/mercari/fake/search-route.ts";
import {
  type StartedMercariFake,
  startMercariFakeServer,
} from "../../src/pipelines/mercari/fake/start-fake.ts";
import { mercariPipeline } from "../../src/pipelines/mercari/index.ts";

const START = "2026-03-01T00:00:00.000Z";
const HOUR = 3_600_000;

function query(over: Partial<CatalogueQuery> = {}): CatalogueQuery {
  return {
    keyword: "Nintendo Switch",
    statuses: [],
    categoryIds: [],
    priceMin: 0,
    priceMax: 0,
    sort: "SORT_CREATED_TIME",
    order: "ORDER_DESC",
    ...over,
  };
}

const ids = (c: Catalogue, q: CatalogueQuery = query()): string[] => c.search(q).map((l) => l.id);

let started: StartedMercariFake | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

describe("fake catalogue", () => {
  it("is deterministic from its seed", () => {
    const a = new Catalogue({ seed: 11, start: START });
    const b = new Catalogue({ seed: 11, start: START });
    const c = new Catalogue({ seed: 12, start: START });
    expect(a.all()).toEqual(b.all());
    expect(ids(a)).not.toEqual(ids(c));
    expect(a.advance(24 * HOUR)).toEqual(b.advance(24 * HOUR));
    expect(a.all()).toEqual(b.all());
    expect(a.now().toISOString()).toBe("2026-03-02T00:00:00.000Z");
  });

  it("moves with its clock: listings appear, change price, sell and are deleted", () => {
    const cat = new Catalogue({ seed: 3, start: START });
    const before = new Map(cat.all().map((l) => [l.id, { ...l }]));
    const report = cat.advance(48 * HOUR);
    expect(report.listed).toBeGreaterThan(0);
    expect(report.repriced).toBeGreaterThan(0);
    expect(report.sold).toBeGreaterThan(0);
    expect(report.completed).toBeGreaterThan(0);
    expect(report.deleted).toBeGreaterThan(0);
    const startS = Date.parse(START) / 1000;
    const after = cat.all();
    const fresh = after.filter((l) => !before.has(l.id));
    // A listing new in this advance may also sell or go again before it ends.
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.length).toBeLessThanOrEqual(report.listed);
    expect(fresh.every((l) => l.created >= startS)).toBe(true);
    const changed = after.filter((l) => before.has(l.id) && before.get(l.id)!.status !== l.status);
    expect(changed.every((l) => l.updated >= startS && l.updated <= startS + 48 * 3600)).toBe(true);
    const cheaper = after.filter((l) => before.has(l.id) && l.price < before.get(l.id)!.price);
    expect(cheaper.length).toBeGreaterThan(0);
    expect(after.length).toBe(before.size + report.listed - report.deleted);
  });

  it("matches keyword tokens in name or description under NFKC and case folding", () => {
    const cat = new Catalogue({ seed: 3, start: START, autoGroups: false });
    const all = ids(cat);
    expect(all.length).toBe(300);
    expect(ids(cat, query({ keyword: "ｎｉｎｔｅｎｄｏ　SWITCH" }))).toEqual(all);
    expect(ids(cat, query({ keyword: "switch" }))).toEqual(all);
    expect(ids(cat, query({ keyword: "nintendo 3ds" }))).toEqual([]);
    const nameless = cat.search(query()).filter((l) => !l.name.includes("Nintendo Switch"));
    expect(nameless.length).toBeGreaterThan(0);
    expect(nameless.length).toBeLessThan(30);
  });

  it("filters by status, price range and category and sorts newest first", () => {
    const cat = new Catalogue({ seed: 3, start: START, autoGroups: false });
    const onSale = cat.search(query({ statuses: ["on_sale"] }));
    expect(onSale.length).toBeGreaterThan(0);
    expect(onSale.every((l) => l.status === "on_sale")).toBe(true);
    const sold = cat.search(query({ statuses: ["sold_out", "trading"] }));
    expect(onSale.length + sold.length).toBe(300);
    const band = cat.search(query({ priceMin: 20_000, priceMax: 25_000 }));
    expect(band.every((l) => l.price >= 20_000 && l.price <= 25_000)).toBe(true);
    expect(band.length).toBeGreaterThan(0);
    expect(cat.search(query({ categoryIds: [701] }))).toHaveLength(300);
    expect(cat.search(query({ categoryIds: [5] }))).toHaveLength(0);
    const created = cat.search(query()).map((l) => l.created);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const byPrice = cat
      .search(query({ sort: "SORT_PRICE", order: "ORDER_ASC" }))
      .map((l) => l.price);
    expect(byPrice).toEqual([...byPrice].sort((a, b) => a - b));
  });

  it("creates listings for an unknown keyword on first search, unless told not to", () => {
    const cat = new Catalogue({ seed: 3, start: START });
    const found = cat.search(query({ keyword: "ルンバ 643" }));
    expect(found.length).toBeGreaterThanOrEqual(40);
    expect(cat.search(query({ keyword: "ルンバ 643" }))).toBe(found);
    const strict = new Catalogue({ seed: 3, start: START, autoGroups: false });
    expect(strict.search(query({ keyword: "ルンバ 643" }))).toEqual([]);
  });

  it("a known keyword with a filter nothing matches is an empty search, not an error", () => {
    const cat = new Catalogue({ seed: 3, start: START });
    expect(cat.search(query({ priceMin: 99_999_999 }))).toEqual([]);
    expect(cat.search(query({ keyword: "ルンバ 643", categoryIds: [424242] }))).toEqual([]);
    expect(cat.search(query({ keyword: "ルンバ 643", priceMin: 99_999_999 }))).toEqual([]);
    expect(cat.search(query({ keyword: "ルンバ 643" })).length).toBeGreaterThanOrEqual(40);
  });

  it("pages with v1:N tokens to the last page; short pages lose nothing; bad tokens are 400", () => {
    const cat = new Catalogue({ seed: 3, start: START, autoGroups: false });
    for (const shortPages of [false, true]) {
      const seen: string[] = [];
      let token = "";
      let pages = 0;
      do {
        const body = { pageSize: 40, pageToken: token, searchCondition: { keyword: "switch" } };
        const page = searchPage(cat, body, { blocked: false, shortPages }) as {
          items: { id: string }[];
          meta: { nextPageToken: string; numFound: string };
        };
        // numFound is an estimate, above what the pages hold, as on Mercari.
        expect(page.meta.numFound).toBe("315");
        seen.push(...page.items.map((i) => i.id));
        if (shortPages && pages === 1) expect(page.items).toHaveLength(33);
        token = page.meta.nextPageToken;
        pages++;
      } while (token !== "");
      expect(new Set(seen).size).toBe(300);
      expect(seen).toHaveLength(300);
    }
    const bad = searchPage(
      cat,
      { pageToken: "zz", searchCondition: {} },
      { blocked: false, shortPages: false },
    );
    expect(bad).toMatchObject({ error: 'invalid pageToken "zz"' });
  });

  it("holds 50,000 listings for one keyword and pages through them quickly", () => {
    const cat = new Catalogue({ seed: 5, start: START, groups: [] });
    const t0 = performance.now();
    cat.addGroup({
      keyword: "ポケモンカード 151",
      count: 50_000,
      soldShare: 0.5,
      descriptionOnlyShare: 0,
    });
    const seen = new Set<string>();
    let token = "";
    do {
      const body = {
        pageSize: 120,
        pageToken: token,
        searchCondition: { keyword: "ポケモンカード 151", sort: "SORT_CREATED_TIME" },
      };
      const page = searchPage(cat, body, { blocked: false, shortPages: false }) as {
        items: { id: string; name: string }[];
        meta: { nextPageToken: string };
      };
      for (const i of page.items) seen.add(i.id);
      token = page.meta.nextPageToken;
    } while (token !== "");
    expect(seen.size).toBe(50_000);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });
});

describe("fake server", () => {
  it("answers 401 without a valid DPoP proof, and the API with one", async () => {
    started = await startMercariFakeServer({ start: START, autoGroups: false });
    const url = `${started.url}/items/get?id=m12345678901`;
    const bare = await fetch(url, { headers: { "x-platform": "web" } });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ message: "invalid DPoP proof: missing" });
    const signer = await createDpopSigner();
    const ok = await fetch(url, { headers: { dpop: await signer.proof("GET", url) } });
    expect(ok.status).toBe(404);
    expect(await ok.json()).toMatchObject({
      result: "error",
      errors: [{ code: "RecordNotFoundException" }],
    });
  });

  it("is driven over its control API: advance, knobs, list, change and delete", async () => {
    started = await startMercariFakeServer({
      start: START,
      autoGroups: false,
      latencyMs: 0,
    } as never);
    const base = `${started.url}/_fake`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));
    const listed = await post("/items", { keyword: "Nintendo Switch", price: 12_345, shop: true });
    expect(listed.status).toBe(201);
    const id = String(listed.body.id);
    expect(id).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(started.fake.catalogue.get(id)?.price).toBe(12_345);
    expect((await post(`/items/${id}`, { price: 11_000, status: "sold_out" })).body).toMatchObject({
      price: 11_000,
      status: "sold_out",
    });
    expect((await fetch(`${base}/items/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(started.fake.catalogue.get(id)).toBeUndefined();
    expect((await post(`/items/${id}`, { price: 1 })).status).toBe(404);
    const advanced = await post("/advance", { hours: 2 });
    expect(advanced.body.now).toBe("2026-03-01T02:00:00.000Z");
    expect((await post("/knobs", { block: "empty", latencyMs: 5 })).body).toMatchObject({
      block: "empty",
      latencyMs: 5,
    });
    expect(started.fake.knobs.block).toBe("empty");
    expect((await post("/knobs", { block: "sideways" })).status).toBe(400);
    expect((await post("/groups", { keyword: "Roomba", count: 25 })).body).toEqual({ added: 25 });
    const counts = await (await fetch(`${base}/detail-counts`)).json();
    expect(counts).toEqual({ total: 0, distinct: 0, repeated: [] });
    const state = (await (await fetch(`${base}/state`)).json()) as {
      counts: { on_sale: number; sold_out: number; trading: number };
    };
    expect(state.counts.on_sale + state.counts.sold_out + state.counts.trading).toBe(
      started.fake.catalogue.all().length,
    );
  });

  it("the pipeline's fake descriptor starts it standalone and points Tidemark at it", async () => {
    const lines: string[] = [];
    const running = await mercariPipeline.fake!.start({
      port: 0,
      host: "127.0.0.1",
      dataDir: ".",
      print: (l) => lines.push(l),
    });
    try {
      const url = running.env.TIDEMARK_MERCARI_URL!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.hints.join("\n")).toContain("/_fake/advance");
      const state = await fetch(`${url}/_fake/state`);
      expect(state.status).toBe(200);
      expect(lines[0]).toMatch(/^catalogue clock at /);
    } finally {
      await running.close();
    }
  });
});
