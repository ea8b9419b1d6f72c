import { getCookie } from "hono/cookie";
import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import type { TrustedProxies } from "../../../infra/config/trusted-proxies.ts";
import {
  currentSession,
  endSession,
  SIGNIN_COOKIE,
  sessionNow,
  signInNonce,
  startSession,
} from "../auth-middleware.ts";
import { clientAddress } from "../client-address.ts";
import { shell } from "../layout.ts";
import type { RevokedSessions } from "../revoked-sessions.ts";
import { safeNext } from "../safe-next.ts";
import type { SessionKeys } from "../session.ts";
import type { SignInThrottle } from "../sign-in-throttle.ts";
import type { UiApp, UiContext } from "../ui-env.ts";

/** What the sign-in pages need besides the session keys. */
export interface SignInDeps {
  readonly revoked: RevokedSessions;
  readonly throttle: SignInThrottle;
  /** `server.trusted_proxies`: whose X-Forwarded-For names the client. */
  readonly proxies: TrustedProxies;
}

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

/** "45 seconds" / "15 minutes": how long a throttled client waits, rounded up. */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** `GET/POST /ui/sign-in`, `POST /ui/sign-out`. */
export function registerSignIn(app: UiApp, keys: SessionKeys, deps: SignInDeps): void {
  app.get("/ui/sign-in", async (c) => {
    if (keys.tokens === undefined) return c.redirect("/ui", 302);
    c.header("cache-control", "no-store");
    const next = safeNext(c.req.query("next"));
    // Already signed in (a bookmark, the back button): straight to the page, not the form again.
    // A signed-out cookie is no session here either, or the two pages would redirect in a loop.
    if (await currentSession(c, keys, deps.revoked)) return c.redirect(next, 302);
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
    const decision = await deps.throttle.begin(clientAddress(c, deps.proxies));
    if (decision.locked) {
      // The token is not even looked at: a guesser learns nothing until the wait is over.
      const wait = decision.retryAfterSeconds;
      c.header("retry-after", String(wait));
      const text = `Too many failed sign-ins from your address: try again in ${waitText(wait)}.`;
      return c.html(signInPage(c, keys, next, text), 429);
    }
    const tokenId = keys.matchToken(field("token"));
    if (!tokenId) return c.html(signInPage(c, keys, next, "That token is not accepted."), 401);
    await decision.attempt.succeeded();
    startSession(c, keys, tokenId);
    return c.redirect(next, 303);
  });

  // Behind the session middleware: needs the session's CSRF token.
  app.post("/ui/sign-out", async (c) => {
    // This browser is signed out whatever happens next.
    endSession(c);
    if (keys.tokens !== undefined) {
      try {
        // Recorded, so a copy of the cookie stops working too, on every `serve` process.
        await deps.revoked.revoke(c.get("session"), sessionNow());
      } catch (cause) {
        throw new HTTPException(503, {
          message:
            "This browser is signed out, but the sign-out could not be recorded (the database " +
            "did not answer): a copy of the session cookie would still work until it expires.",
          cause,
        });
      }
    }
    return c.redirect("/ui/sign-in", 303);
  });
}
