// An API that quotes the request's credentials back in an error body must not get them stored.
import { expect, it, onTestFinished } from "vitest";
import type { EngineTables } from "../../src/engine/engine-tables.ts";
import { startFakeServer } from "../../src/engine/fakes/fake-server.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness, TEST_ENVIRON } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten: credentials quoted in an error body", (h) => {
  it("are masked in the run's failures, its error and what is stored of the run", async () => {
    // Answers 400 quoting the query, and the access key alone with no name before it.
    const echo = await startFakeServer(async (request: Request) => {
      const q = new URL(request.url).searchParams;
      const body = {
        error: "wrong_parameter",
        error_description: `bad query: ${decodeURIComponent(q.toString())}; key ${q.get("accessKey")} refused`,
      };
      return new Response(JSON.stringify(body), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    });
    onTestFinished(() => echo.close());
    const t = await openRakutenHarness(h, { settings: { base_url: echo.url } });
    const r = await t.run("rakuten.ranking", { genre_ids: [0, 100227] });
    expect(r.status).toBe("failed");
    const stored = await typed<EngineTables>(t.rt.db).selectFrom("tm_runs").selectAll().execute();
    const everything = JSON.stringify([r, stored]);
    expect(everything).toContain("bad query");
    expect(everything).toContain("wrong_parameter");
    expect(everything).not.toContain(TEST_ENVIRON.RAKUTEN_APPLICATION_ID);
    expect(everything).not.toContain(TEST_ENVIRON.RAKUTEN_ACCESS_KEY);
  });
});
