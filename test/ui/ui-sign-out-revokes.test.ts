// Sign-out ends the session everywhere: a copy of the cookie (another tab's, a stolen one) is
// refused afterwards by every `serve` process on the database, while the same token's other
// sessions keep working.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { appWithTokens, csrfOf, secondRuntime, signInAs } from "./ui-app.ts";

const TOKEN = "sign-out-revokes-token-0123456789abcdef";

type App = ReturnType<typeof appWithTokens>;

async function signOut(app: App, session: string): Promise<Response> {
  const page = await app.request("/ui", { headers: { cookie: session } });
  return app.request("/ui/sign-out", {
    method: "POST",
    headers: { cookie: session, "content-type": "application/x-www-form-urlencoded" },
    body: `_csrf=${encodeURIComponent(csrfOf(await page.text()))}`,
  });
}

describeEachDialect("dashboard sign-out revokes the session", (h) => {
  it("a copied cookie is refused after sign-out, here and by a second process; other sessions stay", async () => {
    const runtime = await openTestRuntime(h);
    const app = appWithTokens(runtime, [TOKEN]);
    const other = appWithTokens(await secondRuntime(runtime), [TOKEN]);
    const laptop = (await signInAs(app, TOKEN)).session;
    const phone = (await signInAs(app, TOKEN)).session;
    expect(laptop).not.toBe("");
    expect(laptop).not.toBe(phone);
    // Before sign-out the copy works on both processes.
    const before = await other.request("/ui", { headers: { cookie: laptop } });
    expect(before.status).toBe(200);
    const laptopCsrf = csrfOf(await before.text());

    const out = await signOut(app, laptop);
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/ui/sign-in");
    expect(out.headers.getSetCookie().join()).toMatch(/tidemark_session=;.*Max-Age=0/);

    // Replaying the old cookie: sent to sign in, on either process.
    for (const a of [app, other]) {
      const page = await a.request("/ui/runs", { headers: { cookie: laptop } });
      expect(page.status).toBe(302);
      expect(page.headers.get("location")).toBe("/ui/sign-in?next=%2Fui%2Fruns");
      const fragment = await a.request("/ui/fragments/overview", {
        headers: { cookie: laptop, "hx-request": "true" },
      });
      expect(fragment.status).toBe(401);
      // The sign-in page shows its form instead of sending the old cookie on (a redirect loop).
      const form = await a.request("/ui/sign-in?next=%2Fui", { headers: { cookie: laptop } });
      expect(form.status).toBe(200);
      expect(await form.text()).toContain("Sign in to Tidemark");
    }
    // A change sent with the old cookie and its CSRF token changes nothing.
    const change = await other.request("/ui/jobs/nightly/disable", {
      method: "POST",
      headers: { cookie: laptop, "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${encodeURIComponent(laptopCsrf)}`,
    });
    expect(change.status).toBe(401);
    expect(await change.text()).toContain("Your session ended, so nothing was changed.");

    // The same token's other session keeps working, on both processes.
    for (const a of [app, other]) {
      const page = await a.request("/ui", { headers: { cookie: phone } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Sign out");
    }
    // And signing in again gives a working session.
    const fresh = (await signInAs(other, TOKEN)).session;
    expect((await app.request("/ui", { headers: { cookie: fresh } })).status).toBe(200);
  });

  it("when the database cannot say whether a session was signed out, the page is refused", async () => {
    const runtime = await openTestRuntime(h);
    const app = appWithTokens(runtime, [TOKEN]);
    const session = (await signInAs(app, TOKEN)).session;
    const csrf = csrfOf(await (await app.request("/ui", { headers: { cookie: session } })).text());
    // The check's table gone stands for a database that fails the query.
    await sql`drop table tm_ui_revoked_sessions`.execute(runtime.db.kysely);

    const page = await app.request("/ui", { headers: { cookie: session } });
    expect(page.status).toBe(503);
    const text = await page.text();
    expect(text).toContain("Your session could not be checked");
    expect(text).not.toContain("Sign out</button>");
    const fragment = await app.request("/ui/fragments/overview", {
      headers: { cookie: session, "hx-request": "true" },
    });
    expect(fragment.status).toBe(503);
    const change = await app.request("/ui/jobs/nightly/disable", {
      method: "POST",
      headers: { cookie: session, "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(change.status).toBe(503);
  });

  it("a sign-out that cannot be recorded still signs this browser out and says what it means", async () => {
    const runtime = await openTestRuntime(h);
    const app = appWithTokens(runtime, [TOKEN]);
    const session = (await signInAs(app, TOKEN)).session;
    const page = await app.request("/ui", { headers: { cookie: session } });
    const csrf = csrfOf(await page.text());
    // The check passes (the row is not there), the insert fails: a table the insert cannot use.
    await sql`alter table tm_ui_revoked_sessions add column extra text not null`.execute(
      runtime.db.kysely,
    );
    const out = await app.request("/ui/sign-out", {
      method: "POST",
      headers: { cookie: session, "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(out.status).toBe(503);
    expect(out.headers.getSetCookie().join()).toMatch(/tidemark_session=;.*Max-Age=0/);
    expect(await out.text()).toContain(
      "This browser is signed out, but the sign-out could not be recorded",
    );
  });

  it("sign-out rows of sessions that have expired anyway are pruned", async () => {
    const runtime = await openTestRuntime(h);
    const app = appWithTokens(runtime, [TOKEN]);
    const db = runtime.db.kysely;
    await sql`insert into tm_ui_revoked_sessions (nonce, expires_at) values ('old', ${new Date(Date.now() - 60_000).toISOString()})`.execute(
      db,
    );
    await signOut(app, (await signInAs(app, TOKEN)).session);
    const rows = await sql<{ nonce: string }>`select nonce from tm_ui_revoked_sessions`.execute(db);
    expect(rows.rows.map((r) => r.nonce)).toHaveLength(1);
    expect(rows.rows[0]!.nonce).not.toBe("old");
  });
});
