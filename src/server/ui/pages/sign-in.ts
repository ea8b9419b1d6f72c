import { getCookie } from "hono/cookie";
import { html } from "hono/html";
import { endSession, SIGNIN_COOKIE, signInNonce, startSession } from "../auth-middleware.ts";
import { safeNext } from "../format.ts";
import { shell } from "../layout.ts";
import { SESSION_COOKIE, type SessionKeys } from "../session.ts";
import type { UiApp, UiContext } from "../ui-env.ts";

function signInPage(c: UiContext, keys: SessionKeys, next: string, error?: string) {
  const csrf = signInNonce(c, keys);
  return shell({
    title: "Sign in",
    panels: [],
    flash: error ? { text: error, error: true } : undefined,
    body: html`<section class="card signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in to Tidemark</h1>
      <form method="post" action="/ui/sign-in">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="next" value="${next}" />
        <label for="token">API token
          <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p class="tone-muted">Use one of the tokens of <code>api_tokens</code> / <code>TIDEMARK_API_TOKENS</code>.</p>
    </section>`,
  });
}

/** `GET/POST /ui/sign-in`, `POST /ui/sign-out`. */
export function registerSignIn(app: UiApp, keys: SessionKeys): void {
  app.get("/ui/sign-in", (c) => {
    if (keys.tokens === undefined) return c.redirect("/ui", 302);
    c.header("cache-control", "no-store");
    const next = safeNext(c.req.query("next"));
    // Already signed in (a bookmark, the back button): straight to the page, not the form again.
    const now = Math.floor(Date.now() / 1000);
    if (keys.verify(getCookie(c, SESSION_COOKIE), now)) return c.redirect(next, 302);
    return c.html(signInPage(c, keys, next));
  });

  app.post("/ui/sign-in", async (c) => {
    if (keys.tokens === undefined) return c.redirect("/ui", 303);
    c.header("cache-control", "no-store");
    const body = await c.req.parseBody();
    const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
    const next = safeNext(field("next"));
    const nonce = getCookie(c, SIGNIN_COOKIE);
    if (!nonce || !keys.checkCsrf(nonce, field("_csrf"))) {
      // Refused (403), but with a fresh form: the usual cause is a form left open past its
      // 30 minutes, and the person only has to sign in again.
      const expired = "This sign-in form expired or did not come from this page: sign in again.";
      return c.html(signInPage(c, keys, next, expired), 403);
    }
    const tokenId = keys.matchToken(field("token"));
    if (!tokenId) return c.html(signInPage(c, keys, next, "That token is not accepted."), 401);
    startSession(c, keys, tokenId);
    return c.redirect(next, 303);
  });

  // Behind the session middleware: needs the session's CSRF token.
  app.post("/ui/sign-out", (c) => {
    endSession(c);
    return c.redirect("/ui/sign-in", 303);
  });
}
