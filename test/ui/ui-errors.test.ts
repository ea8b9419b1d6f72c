// What a person sees when a link is stale, a URL is typed with a slash too many or a form is
// refused: a page of the dashboard (navigation, the reason, a way back), with the right status.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi } from "./ui-app.ts";

const NAV = '<nav aria-label="Main" id="main-nav">';

describeEachDialect("dashboard error pages", (h) => {
  it("a trailing slash redirects to the page (keeping the query) instead of 404", async () => {
    const { get } = await openUi(await openTestRuntime(h));
    expect(await get("/ui/")).toMatchObject({ status: 301, location: "/ui" });
    expect(await get("/ui/runs/?status=failed")).toMatchObject({
      status: 301,
      location: "/ui/runs?status=failed",
    });
    expect((await get("/ui/runs")).status).toBe(200);
  });

  it("unknown pages, runs, panels and jobs answer an HTML page with the navigation", async () => {
    const { get, post } = await openUi(await openTestRuntime(h));
    const cases = [
      { page: await get("/ui/nope"), status: 404, says: "no page at /ui/nope" },
      { page: await get("/ui/runs/no-such-run"), status: 404, says: "unknown run" },
      { page: await get("/ui/pipelines/no-such"), status: 404, says: "no panel named" },
      { page: await get("/ui/runs?status=bogus"), status: 400, says: "unknown status" },
      { page: await get("/ui/runs?page=-1"), status: 400, says: "page must be a whole number" },
      { page: await post("/ui/jobs/gone/run", ""), status: 404, says: "unknown job" },
      { page: await post("/ui/jobs/gone/enabled", "enabled=x"), status: 400, says: "enabled must" },
      { page: await post("/ui/queue/redrive", "queue=q&id=all"), status: 409, says: "no queue" },
      { page: await post("/ui/jobs/gone/run", "", { csrf: false }), status: 403, says: "CSRF" },
    ];
    for (const c of cases) {
      expect({ status: c.page.status, says: c.page.text.includes(c.says) }).toEqual({
        status: c.status,
        says: true,
      });
      expect(c.page.text).toContain(NAV);
      expect(c.page.text).toContain('href="/ui">Back to the overview');
    }
  });
});
