// The mercari HTTP API: bearer auth on every route, the manual crawl (502 when blocked), the
// results with filters, products CRUD, price trend and cheapest listings, the OpenAPI document.
import { expect, it } from "vitest";
import { mercariRoutes } from "../../src/pipelines/mercari/routes.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { api, type Body } from "./support/api.ts";
import { openWorld, rowsOf } from "./support/world.ts";

/** A concrete URL for each route (ids filled in). */
function urlOf(route: (typeof mercariRoutes)[number]): string {
  const prefix = route.mount === "api" ? "/api" : "/api/mercari";
  return prefix + route.path.replace("{id}", "1").replace("{productId}", "1");
}

describeEachDialect("mercari API", (h) => {
  it("every route answers 401 without a valid bearer token, and is in /openapi.json", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const doc = (await call("GET", "/openapi.json")).body;
    for (const route of mercariRoutes) {
      for (const token of [null, "wrong-token-wrong-token-000"]) {
        const res = await call(route.method.toUpperCase(), urlOf(route), undefined, token);
        expect({ route: urlOf(route), status: res.status }).toEqual({
          route: urlOf(route),
          status: 401,
        });
      }
      const path = (route.mount === "api" ? "/api" : "/api/mercari") + route.path;
      expect(doc.paths[path]?.[route.method], path).toBeDefined();
    }
    const results = doc.paths["/api/crawl/results/{productId}"].get;
    expect(JSON.stringify(results)).toContain("approximated from Mercari's `updated` time");
    // The document lists the answers the routes really give.
    const answers = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses).sort();
    expect(answers("/api/mercari/products", "post")).toEqual(["201", "400", "401", "500"]);
    expect(answers("/api/crawl/execute", "post")).toEqual([
      "200",
      "400",
      "401",
      "404",
      "409",
      "500",
      "502",
    ]);
    expect(
      doc.paths["/api/crawl/execute"].post.responses["502"].content["application/json"].schema
        .properties.error,
    ).toMatchObject({ enum: ["blocked"] });
  });

  it("price trend: an impossible date or an inverted window answers 400 naming the field", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const id = (await call("POST", "/api/mercari/products", { name: "S", keyword: "Switch" })).body
      .id;
    const trend = (q: string) => call("GET", `/api/mercari/products/${id}/price-trend?${q}`);
    for (const [q, field] of [
      ["from=2026-02-31", "from"],
      ["to=2026-13-01", "to"],
      ["from=2026-02-31T10:00:00Z", "from"],
    ] as const) {
      const res = await trend(q);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect(res.body.error.issues[0].path).toEqual([field]);
    }
    const inverted = await trend("from=2026-11-20&to=2026-11-01");
    expect(inverted.status).toBe(400);
    expect(inverted.body.error.message).toMatch(/to: must be after from \(2026-11-20\)/);
    // A from after now with the default to (now) is as empty a window.
    const future = await trend("from=2999-01-01");
    expect(future.status).toBe(400);
    expect(future.body.error.message).toMatch(/from .* must be before to/);
    expect((await trend("from=2024-02-29&to=2024-03-01")).status).toBe(200);
  });

  it("results: a min_price above max_price answers 400 naming both", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const id = (await call("POST", "/api/mercari/products", { name: "S", keyword: "Switch" })).body
      .id;
    const results = (q: string) => call("GET", `/api/crawl/results/${id}?${q}`);
    const prices = await results("min_price=500&max_price=100");
    expect(prices.status).toBe(400);
    expect(prices.body.error.message).toMatch(/max_price: must be at least min_price \(500\)/);
    expect((await results("min_price=100&max_price=100")).status).toBe(200);
  });

  it("products CRUD, manual crawl, results, cheapest and price trend", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const bad = await call("POST", "/api/mercari/products", {
      name: "x",
      keyword: "Switch",
      min_price: 500,
      max_price: 100,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("max_price");
    expect((await call("GET", "/api/mercari/products")).body.products).toEqual([]);

    const created = await call("POST", "/api/mercari/products", {
      name: "Switch",
      keyword: "Nintendo Switch",
      min_price: 16000,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      name: "Switch",
      enabled: true,
      min_price: 16000,
      max_price: null,
    });
    expect(created.body.exclude_keyword).toBeNull();
    const patched = await call("PATCH", `/api/mercari/products/${id}`, { max_price: 36000 });
    expect(patched.body).toMatchObject({ min_price: 16000, max_price: 36000 });
    // An exclude keyword is set and cleared like the other optional fields.
    const excluded = await call("PATCH", `/api/mercari/products/${id}`, {
      exclude_keyword: "ケース",
    });
    expect(excluded.body).toMatchObject({ exclude_keyword: "ケース", max_price: 36000 });
    const cleared = await call("PATCH", `/api/mercari/products/${id}`, { exclude_keyword: null });
    expect(cleared.body.exclude_keyword).toBeNull();
    expect((await call("POST", `/api/mercari/products/${id}/disable`)).body.enabled).toBe(false);
    expect((await call("POST", `/api/mercari/products/${id}/enable`)).body.enabled).toBe(true);
    expect((await call("GET", "/api/mercari/products/999")).status).toBe(404);

    // The manual crawl: no body = every enabled product.
    const crawl = await call("POST", "/api/crawl/execute");
    expect(crawl.status).toBe(200);
    expect(crawl.body.products).toHaveLength(1);
    expect(crawl.body.products[0]).toMatchObject({ product_id: id, first_run: true });
    // Counted from the pages; Mercari's numFound shown only as the estimate it is.
    const summary = crawl.body.products[0];
    expect(summary.num_found_estimate).toBeGreaterThan(summary.found);
    expect(summary).toHaveProperty("no_price");
    expect(summary).toHaveProperty("seller_checks.enqueued");
    const one = await call("POST", "/api/crawl/execute", { productId: id });
    expect(one.body.products[0]).toMatchObject({ product_id: id, first_run: false, pages: 3 });
    expect((await call("POST", "/api/crawl/execute", { productId: 999 })).status).toBe(404);
    await w.drain();

    const all = await call("GET", `/api/crawl/results/${id}?limit=500`);
    const rows = await rowsOf(w, id);
    expect(all.body.total).toBe(rows.length);
    expect(all.body.items.every((r: Body) => r.price >= 16000 && r.price <= 36000)).toBe(true);
    const sold = await call(
      "GET",
      `/api/crawl/results/${id}?status=sold&sort=price&limit=5&offset=1`,
    );
    expect(sold.body.items).toHaveLength(5);
    expect(sold.body.items.every((r: Body) => r.status === "sold" && r.sold_out_at)).toBe(true);
    const prices = sold.body.items.map((r: Body) => r.price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const ranged = await call("GET", `/api/crawl/results/${id}?min_price=20000&max_price=25000`);
    expect(ranged.body.items.every((r: Body) => r.price >= 20000 && r.price <= 25000)).toBe(true);
    expect((await call("GET", `/api/crawl/results/${id}?status=gone`)).status).toBe(400);

    const cheapest = await call("GET", `/api/mercari/products/${id}/cheapest?limit=3`);
    expect(cheapest.body.items).toHaveLength(3);
    const onSale = rows.filter((r) => r.selling_status === 1).map((r) => r.price);
    expect(cheapest.body.items[0].price).toBe(Math.min(...onSale));

    const trend = await call("GET", `/api/mercari/products/${id}/price-trend?bucket=week`);
    expect(trend.status).toBe(200);
    const counted = trend.body.buckets.reduce((n: number, b: Body) => n + b.count, 0);
    const inWindow = rows.filter(
      (r) => r.sold_out_at && r.sold_out_at >= trend.body.from && r.sold_out_at < trend.body.to,
    );
    expect(counted).toBe(inWindow.length);
    for (const b of trend.body.buckets) {
      expect(b.min <= b.p25 && b.p25 <= b.median && b.median <= b.p75 && b.p75 <= b.max).toBe(true);
    }
    expect((await call("GET", `/api/mercari/products/${id}/price-trend?bucket=month`)).status).toBe(
      400,
    );

    w.fake.fake.knobs.block = "forbidden";
    const blocked = await call("POST", "/api/crawl/execute", { productId: id });
    expect(blocked.status).toBe(502);
    expect(blocked.body.error).toBe("blocked");
    expect(await rowsOf(w, id)).toEqual(rows);

    const removed = await call("DELETE", `/api/mercari/products/${id}`);
    expect(removed.body).toEqual({ id, results_deleted: rows.length });
    expect(await rowsOf(w, id)).toEqual([]);
    expect((await call("DELETE", `/api/mercari/products/${id}`)).status).toBe(404);
  });
});
