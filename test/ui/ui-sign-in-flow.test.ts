// Sign-in as a person meets it: a signed-in browser that opens the sign-in page (bookmark, back
// button) goes on to the page it asked for; without authentication there is no "Sign out".
import { expect, it } from "vitest";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testApp } from "../../src/testing/test-app.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi } from "./ui-app.ts";

const TOKEN = "sign-in-flow-token-0123456789abcdef";

function appWithToken(runtime: Runtime) {
  return testApp(runtime, { tokens: [TOKEN] });
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");

describeEachDialect("dashboard sign-in flow", (h) => {
  it("a signed-in browser opening the sign-in page goes on to the page it asked for", async () => {
    const app = appWithToken(await openTestRuntime(h));
    const form = await app.request("/ui/sign-in");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signed = await app.request("/ui/sign-in", {
      method: "POST",
      headers: {
        cookie: cookiesOf(form),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: csrf, token: TOKEN, next: "/ui" }).toString(),
    });
    expect(signed.status).toBe(303);
    const session = cookiesOf(signed);
    const again = await app.request("/ui/sign-in?next=%2Fui%2Fqueue", {
      headers: { cookie: session },
    });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("/ui/queue");
    // Signed in, the pages show "Sign out"; a visitor without a session still gets the form.
    expect(await (await app.request("/ui", { headers: { cookie: session } })).text()).toContain(
      "Sign out",
    );
    expect((await app.request("/ui/sign-in")).status).toBe(200);
  });

  it("a `next` that would leave the dashboard lands on /ui, signing in or already signed in", async () => {
    const app = appWithToken(await openTestRuntime(h));
    const hostile = [
      "/ui/../..//evil.example",
      "/ui/%2e%2e/%2e%2e//evil.example",
      "/ui/..%2f..%2f%2fevil.example",
      "/ui/..\\..\\evil.example",
      "//evil.example",
    ];
    let session = "";
    for (const next of hostile) {
      const form = await app.request(`/ui/sign-in?next=${encodeURIComponent(next)}`);
      const page = await form.text();
      expect(page).toContain('name="next" value="/ui"');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
      const signed = await app.request("/ui/sign-in", {
        method: "POST",
        headers: { cookie: cookiesOf(form), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, token: TOKEN, next }).toString(),
      });
      expect(signed.status, next).toBe(303);
      expect(signed.headers.get("location"), next).toBe("/ui");
      session = cookiesOf(signed);
    }
    for (const next of hostile) {
      const again = await app.request(`/ui/sign-in?next=${encodeURIComponent(next)}`, {
        headers: { cookie: session },
      });
      expect(again.status, next).toBe(302);
      expect(again.headers.get("location"), next).toBe("/ui");
    }
    // Dot segments that stay inside the dashboard are resolved, not refused.
    const inside = await app.request(
      `/ui/sign-in?next=${encodeURIComponent("/ui/runs/../queue")}`,
      {
        headers: { cookie: session },
      },
    );
    expect(inside.headers.get("location")).toBe("/ui/queue");
  });

  it("without authentication, pages offer no Sign out (there is nothing to sign out of)", async () => {
    const { get } = await openUi(await openTestRuntime(h));
    for (const p of ["/ui", "/ui/runs", "/ui/queue", "/ui/nope"]) {
      expect((await get(p)).text).not.toContain("Sign out");
    }
  });

  it("a sign-in form past its time is refused (403) with a fresh form to sign in again", async () => {
    const app = appWithToken(await openTestRuntime(h));
    // No sign-in cookie any more (it lasts 30 minutes): the CSRF check cannot pass.
    const stale = await app.request("/ui/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: "old", token: TOKEN, next: "/ui/runs" }).toString(),
    });
    expect(stale.status).toBe(403);
    expect(stale.headers.getSetCookie().join()).not.toContain("tidemark_session=");
    const page = await stale.text();
    expect(page).toContain("This sign-in form expired");
    expect(page).toContain('name="next" value="/ui/runs"');
    // The fresh form works.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const again = await app.request("/ui/sign-in", {
      method: "POST",
      headers: { cookie: cookiesOf(stale), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, token: TOKEN, next: "/ui/runs" }).toString(),
    });
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/ui/runs");
  });

  it("a form sent after the session ended is refused (401) by a page leading to sign-in", async () => {
    const app = appWithToken(await openTestRuntime(h));
    for (const p of ["/ui/jobs/nightly/run", "/ui/sign-out"]) {
      const res = await app.request(p, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "_csrf=old",
      });
      expect(res.status).toBe(401);
      const page = await res.text();
      expect(page).toContain("Your session ended, so nothing was changed.");
      expect(page).toContain('<a href="/ui/sign-in">Sign in again</a>');
    }
    // A page refreshing itself still gets the short answer and where to sign in.
    const htmx = await app.request("/ui/fragments/overview", { headers: { "hx-request": "true" } });
    expect(htmx.status).toBe(401);
    expect(htmx.headers.get("hx-redirect")).toMatch(/^\/ui\/sign-in/);
  });
});
