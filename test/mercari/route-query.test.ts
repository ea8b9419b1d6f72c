// Path and query values of the mercari API: only decimal digits are numbers. Anything else
// ("", " ", "0x10", "1e3", "+5") is a 400 naming the field, and /openapi.json says integer,
// never null, as the routes really answer.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { api, type Body } from "./support/api.ts";
import { openWorld } from "./support/world.ts";

describeEachDialect("mercari API query values", (h) => {
  it("a number that is not plain decimal digits answers 400 naming the field", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const id = (await call("POST", "/api/mercari/products", { name: "S", keyword: "Switch" })).body
      .id;
    const cases: Array<[string, string]> = [
      [`/api/crawl/results/${id}?min_price=`, "min_price"],
      [`/api/crawl/results/${id}?min_price=%20`, "min_price"],
      [`/api/crawl/results/${id}?max_price=0x10`, "max_price"],
      [`/api/crawl/results/${id}?min_price=1e3`, "min_price"],
      [`/api/crawl/results/${id}?limit=+5`, "limit"],
      [`/api/crawl/results/${id}?offset=`, "offset"],
      [`/api/crawl/results/${id}?limit=2.0`, "limit"],
      [`/api/mercari/products/${id}/cheapest?limit=0x2`, "limit"],
      [`/api/crawl/results/%20${id}`, "productId"],
      [`/api/mercari/products/0x${id}`, "id"],
      [`/api/mercari/products/${id}e0/cheapest`, "id"],
    ];
    for (const [path, field] of cases) {
      const res = await call("GET", path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.error.issues[0].path, path).toEqual([field]);
    }
    const ok = await call("GET", `/api/crawl/results/${id}?min_price=0&max_price=10&limit=5`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ limit: 5, offset: 0, total: 0 });
    expect((await call("GET", `/api/mercari/products/0${id}/cheapest?limit=3`)).status).toBe(200);
  });

  it("price trend takes a timestamp with an offset; one without a zone is a clear 400", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const id = (await call("POST", "/api/mercari/products", { name: "S", keyword: "Switch" })).body
      .id;
    const trend = (q: string) => call("GET", `/api/mercari/products/${id}/price-trend?${q}`);
    const tokyo = await trend("from=2026-11-01T00:00:00%2B09:00&to=2026-11-02T00:00:00%2B09:00");
    expect(tokyo.status).toBe(200);
    expect(tokyo.body).toMatchObject({
      from: "2026-10-31T15:00:00.000Z",
      to: "2026-11-01T15:00:00.000Z",
    });
    const local = await trend("from=2026-11-01T00:00:00");
    expect(local.status).toBe(400);
    expect(local.body.error.message).toMatch(
      /^query: from: expected a date \(YYYY-MM-DD\) or a timestamp with Z or an offset/,
    );
  });

  it("a manual crawl of a product being crawled answers 409, as /openapi.json says", async () => {
    const w = await openWorld(h);
    const call = api(w);
    const id = (await call("POST", "/api/mercari/products", { name: "S", keyword: "Switch" })).body
      .id;
    await w.runtime.leases.tryAcquire(`mercari.crawl:product:${id}`, "other-worker", 60_000);
    const res = await call("POST", "/api/crawl/execute", { productId: id });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("already running");
    const doc = (await call("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/api/crawl/execute"].post.responses)).toContain("409");
  });

  it("/openapi.json documents numeric query and path values as integers, never null", async () => {
    const w = await openWorld(h);
    const doc = (await api(w)("GET", "/openapi.json")).body;
    const params = (path: string, method = "get") =>
      Object.fromEntries(
        (doc.paths[path][method].parameters as Body[]).map((p) => [p.name, p.schema]),
      );
    const results = params("/api/crawl/results/{productId}");
    for (const name of ["productId", "min_price", "max_price", "limit", "offset"]) {
      expect(results[name].type, name).toBe("integer");
    }
    expect(results.limit).toMatchObject({ minimum: 1, maximum: 500, default: 50 });
    expect(params("/api/mercari/products/{id}/cheapest").limit.type).toBe("integer");
    expect(params("/api/mercari/products/{id}").id.type).toBe("integer");
  });
});
