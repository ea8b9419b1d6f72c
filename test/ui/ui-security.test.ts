// Dashboard security over plain HTTP against a real `tidemark serve`: sessions, CSRF, and the
// API token kept out of pages, logs and URLs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionKeys } from "../../src/server/ui/session.ts";
import { type DemoServe, startDemoServe, UI_TOKEN } from "./ui-serve.ts";

/** A cookie jar of one browser: name=value pairs from Set-Cookie. */
class Jar {
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

const csrfIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1];

describe("dashboard security (HTTP)", () => {
  let serve: DemoServe;
  const seen: string[] = [];

  const request = async (jar: Jar | undefined, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar && jar.cookies.size > 0) headers.set("cookie", jar.header());
    const res = await fetch(`${serve.url}${path}`, { ...init, headers, redirect: "manual" });
    jar?.take(res);
    seen.push(path, res.headers.get("location") ?? "");
    return res;
  };
  const form = (fields: Record<string, string>): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

  /** A browser signed in through the form; returns its jar and CSRF token. */
  const signIn = async () => {
    const jar = new Jar();
    const page = await (await request(jar, "/ui/sign-in")).text();
    const res = await request(
      jar,
      "/ui/sign-in",
      form({ _csrf: csrfIn(page)!, token: UI_TOKEN, next: "/ui/runs" }),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/ui/runs");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("tidemark_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=\d+/);
    expect(cookie).toMatch(/Path=\/ui/);
    const csrf = csrfIn(await (await request(jar, "/ui")).text())!;
    return { jar, csrf };
  };

  const PAGES = [
    "/ui",
    "/ui/runs",
    "/ui/queue",
    "/ui/jobs/snapshots.acme",
    "/ui/pipelines/books",
    "/ui/pipelines/snapshots",
  ];
  const FRAGMENTS = ["/ui/fragments/overview", "/ui/fragments/runs/x"];
  const CHANGES = [
    "/ui/jobs/snapshots.acme/run",
    "/ui/jobs/snapshots.acme/enabled",
    "/ui/queue/redrive",
    "/ui/queue/delete",
    "/ui/pipelines/books/actions/reset-cursors",
    "/ui/sign-out",
  ];

  beforeAll(async () => {
    serve = await startDemoServe();
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it("without a session: pages redirect to sign-in, fragments and changes answer 401", async () => {
    for (const p of PAGES) {
      const res = await request(undefined, p);
      expect({ p, status: res.status }).toEqual({ p, status: 302 });
      expect(res.headers.get("location")).toBe(`/ui/sign-in?next=${encodeURIComponent(p)}`);
    }
    for (const p of FRAGMENTS) expect((await request(undefined, p)).status).toBe(401);
    // A page refreshing itself is told where to sign in again.
    const htmx = await request(undefined, "/ui/fragments/overview", {
      headers: { "hx-request": "true", "hx-current-url": `${serve.url}/ui/runs?job=a` },
    });
    expect(htmx.status).toBe(401);
    expect(htmx.headers.get("hx-redirect")).toBe("/ui/sign-in?next=%2Fui%2Fruns%3Fjob%3Da");
    for (const p of CHANGES)
      expect((await request(undefined, p, form({ enabled: "false" }))).status).toBe(401);
    // A bearer token is for the API, not a dashboard session.
    const bearer = await request(undefined, "/ui", {
      headers: { authorization: `Bearer ${UI_TOKEN}` },
    });
    expect(bearer.status).toBe(302);
    // And the API still wants its bearer token.
    expect((await request(undefined, "/api/jobs")).status).toBe(401);
  });

  it("refuses forged, tampered, expired and foreign session cookies", async () => {
    const { jar } = await signIn();
    const good = jar.cookies.get("tidemark_session")!;
    const [body, mac] = good.split(".");
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<
      string,
      unknown
    >;
    const tampered = `${Buffer.from(JSON.stringify({ ...payload, exp: now + 10 ** 7 })).toString("base64url")}.${mac}`;
    const keys = new SessionKeys([UI_TOKEN]);
    const tokenId = payload.tokenId as string;
    const cases = {
      forged: `${body}.AAAA${mac!.slice(4)}`,
      tampered,
      expired: keys.issue(tokenId, now - 13 * 3600, 3600),
      foreign: new SessionKeys(["another-installation-token"]).issue(tokenId, now),
      garbage: "not-a-session",
    };
    // The same signer with the right key is accepted: the cases fail for their reason only.
    expect(
      (
        await request(undefined, "/ui", {
          headers: { cookie: `tidemark_session=${keys.issue(tokenId, now)}` },
        })
      ).status,
    ).toBe(200);
    for (const [what, cookie] of Object.entries(cases)) {
      const res = await request(undefined, "/ui", {
        headers: { cookie: `tidemark_session=${cookie}` },
      });
      expect({ what, status: res.status }).toEqual({ what, status: 302 });
      const frag = await request(undefined, "/ui/fragments/overview", {
        headers: { cookie: `tidemark_session=${cookie}` },
      });
      expect({ what, status: frag.status }).toEqual({ what, status: 401 });
    }
  });

  it("refuses every change without the session's CSRF token (403) and changes nothing", async () => {
    const { jar, csrf } = await signIn();
    const other = await signIn();
    const enabled = async () =>
      /"enabled": true/.test((await serve.cli("job", "show", "snapshots.acme", "--json")).stdout);
    const before = await enabled();
    for (const p of CHANGES) {
      const fields = {
        enabled: String(!before),
        queue: "tidemark.run",
        id: "all",
        job: "consultant-books",
        confirmed: "yes",
      };
      expect({ p, status: (await request(jar, p, form(fields))).status }).toEqual({
        p,
        status: 403,
      });
      // Another session's token is no better.
      const wrong = await request(jar, p, form({ ...fields, _csrf: other.csrf }));
      expect({ p, status: wrong.status }).toEqual({ p, status: 403 });
    }
    expect(await enabled()).toBe(before);
    // The sign-in form wants its own token too.
    const noCsrf = await request(new Jar(), "/ui/sign-in", form({ token: UI_TOKEN }));
    expect(noCsrf.status).toBe(403);
    // With the token, the change goes through.
    const ok = await request(
      jar,
      "/ui/jobs/snapshots.acme/enabled",
      form({ _csrf: csrf, enabled: String(!before) }),
    );
    expect(ok.status).toBe(303);
    expect(await enabled()).toBe(!before);
  });

  it("a wrong token does not sign in; the token appears in no page, URL or log line", async () => {
    const jar = new Jar();
    const page = await (await request(jar, "/ui/sign-in")).text();
    const wrong = await request(
      jar,
      "/ui/sign-in",
      form({ _csrf: csrfIn(page)!, token: "nope-not-a-token" }),
    );
    expect(wrong.status).toBe(401);
    expect(jar.cookies.has("tidemark_session")).toBe(false);

    const { jar: signed } = await signIn();
    const runs = await (await request(signed, "/ui/runs")).text();
    const runLinks = [...runs.matchAll(/href="(\/ui\/runs\/[^"]+)"/g)].map((m) => m[1]!);
    const pages = [...PAGES, ...runLinks.slice(0, 3), "/ui/sign-in"];
    for (const p of pages) {
      const res = await request(signed, p);
      const text = await res.text();
      expect({ p, leak: text.includes(UI_TOKEN) }).toEqual({ p, leak: false });
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    expect(seen.join("\n")).not.toContain(UI_TOKEN);
    expect(serve.output()).not.toContain(UI_TOKEN);
  });

  it("serves its assets from the package, and / redirects to /ui", async () => {
    const root = await request(undefined, "/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/ui");
    for (const a of ["htmx.min.js", "uplot.min.js", "uplot.min.css", "app.css", "app.js"]) {
      const res = await request(undefined, `/ui/assets/${a}`);
      expect({ a, status: res.status }).toEqual({ a, status: 200 });
      expect((await res.text()).length).toBeGreaterThan(100);
    }
  });
});
