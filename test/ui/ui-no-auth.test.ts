// `tidemark serve --insecure-no-auth`: no sign-in, but changes still need the CSRF token.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testApp } from "../../src/testing/test-app.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { csrfOf } from "./ui-app.ts";
import { uiRegistry } from "./ui-serve.ts";

describeEachDialect("dashboard without authentication", (h) => {
  it("opens without sign-in and still refuses a change without the CSRF token", async () => {
    const runtime = await openTestRuntime(h, { registry: uiRegistry() });
    const app = testApp(runtime);
    const signIn = await app.request("/ui/sign-in");
    expect(signIn.status).toBe(302);
    const first = await app.request("/ui");
    expect(first.status).toBe(200);
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith("tidemark_session="))!;
    const jar = cookie.split(";")[0]!;
    const page = await first.text();
    const csrf = csrfOf(page);
    for (const p of ["/ui/pipelines/books", "/ui/pipelines/snapshots", "/ui/runs", "/ui/queue"]) {
      expect({ p, status: (await app.request(p, { headers: { cookie: jar } })).status }).toEqual({
        p,
        status: 200,
      });
    }
    const post = (body: string) =>
      app.request("/ui/pipelines/books/actions/reset-cursors", {
        method: "POST",
        headers: { cookie: jar, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
    expect((await post("job=nightly&confirmed=yes")).status).toBe(403);
    const confirm = await post(`job=nightly&_csrf=${csrf}`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain("Reset every collect cursor of job nightly?");
    const unknown = await post(`job=nightly&confirmed=yes&_csrf=${csrf}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("unknown job");
    // Behind a TLS proxy the cookie is Secure.
    const proxied = await app.request("/ui", { headers: { "x-forwarded-proto": "https" } });
    expect(proxied.headers.getSetCookie()[0]).toMatch(/; Secure/);
    expect(cookie).not.toMatch(/Secure/);
    // A bad action input is refused before anything runs.
    expect((await post(`job=&confirmed=yes&_csrf=${csrf}`)).status).toBe(400);
  });
});
