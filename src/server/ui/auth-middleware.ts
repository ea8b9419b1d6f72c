import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import type { CookieOptions } from "hono/utils/cookie";
import { uiError } from "./pages/error-page.ts";
import type { RevokedSessions } from "./revoked-sessions.ts";
import { safeNext } from "./safe-next.ts";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type Session, type SessionKeys } from "./session.ts";
import type { UiContext, UiEnv } from "./ui-env.ts";

/** Cookie of the sign-in form's CSRF nonce (before there is a session). */
export const SIGNIN_COOKIE = "tidemark_signin";
/** One-shot message shown on the next page (set after a change, cleared when shown). */
export const FLASH_COOKIE = "tidemark_flash";

/** Paths answered without a session: the sign-in form and the packaged assets. */
function isPublic(path: string): boolean {
  return path === "/ui/sign-in" || path.startsWith("/ui/assets/");
}

/** Fragments (htmx) get 401, pages a redirect to the sign-in form. */
function isFragment(c: UiContext): boolean {
  return c.req.path.startsWith("/ui/fragments/") || c.req.header("hx-request") === "true";
}

/** The sign-in form, returning to the page an htmx request came from (or the overview). */
function signInUrl(c: UiContext): string {
  const current = c.req.header("hx-current-url");
  let next = "/ui";
  if (current) {
    try {
      const u = new URL(current);
      next = u.pathname + u.search;
    } catch {
      // Not a URL: back to the overview.
    }
  }
  return `/ui/sign-in?next=${encodeURIComponent(safeNext(next))}`;
}

/**
 * HttpOnly, SameSite=Strict cookie options under /ui; Secure when served over https, directly or
 * behind a proxy that says so (trusting the header can only make the cookie stricter).
 */
export function cookieOptions(c: UiContext, maxAge: number): CookieOptions {
  const secure =
    new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
  return { httpOnly: true, sameSite: "Strict", path: "/ui", maxAge, secure };
}

/** Now in epoch seconds, the time sessions are issued, checked and revoked by (the wall clock). */
export function sessionNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The browser's session when its cookie verifies and it was not signed out. With authentication
 * on, a session is only valid if the database says it was not revoked; when that cannot be asked,
 * the request fails (503) rather than pass as signed in.
 */
export async function currentSession(
  c: UiContext,
  keys: SessionKeys,
  revoked: RevokedSessions,
): Promise<Session | undefined> {
  const session = keys.verify(getCookie(c, SESSION_COOKIE), sessionNow());
  // Without authentication there is nothing to protect, and nothing is ever revoked.
  if (!session || keys.tokens === undefined) return session;
  let isRevoked: boolean;
  try {
    isRevoked = await revoked.isRevoked(session);
  } catch (cause) {
    throw new HTTPException(503, {
      message: "Your session could not be checked (the database did not answer): try again.",
      cause,
    });
  }
  return isRevoked ? undefined : session;
}

/** Signs the browser in: a fresh signed session cookie. */
export function startSession(c: UiContext, keys: SessionKeys, tokenId: string): void {
  const now = sessionNow();
  setCookie(c, SESSION_COOKIE, keys.issue(tokenId, now), cookieOptions(c, SESSION_TTL_SECONDS));
}

/** Signs the browser out. */
export function endSession(c: UiContext): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/ui" });
}

/** A nonce for the sign-in form, kept in a short-lived cookie, and its CSRF token. */
export function signInNonce(c: UiContext, keys: SessionKeys): string {
  let nonce = getCookie(c, SIGNIN_COOKIE);
  if (!nonce || !/^[0-9a-f]{24}$/.test(nonce)) {
    nonce = randomBytes(12).toString("hex");
    setCookie(c, SIGNIN_COOKIE, nonce, cookieOptions(c, 1800));
  }
  return keys.csrf(nonce);
}

/** The CSRF token sent with a form (`_csrf` field) or an htmx request (X-CSRF-Token). */
export async function sentCsrf(c: UiContext): Promise<string | undefined> {
  const header = c.req.header("x-csrf-token");
  if (header) return header;
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/.test(type)) return undefined;
  const body = await c.req.parseBody();
  return typeof body._csrf === "string" ? body._csrf : undefined;
}

/**
 * Every dashboard request but the public ones needs a valid session, one not signed out (see
 * currentSession): pages redirect to the sign-in form, fragments answer 401. Every request that
 * may change something (any method but GET/HEAD) needs the session's CSRF token, or is answered
 * 403. With authentication off there is no sign-in: a browser gets an anonymous session (still
 * needed for CSRF).
 */
export function requireSession(
  keys: SessionKeys,
  revoked: RevokedSessions,
): MiddlewareHandler<UiEnv> {
  return async (c, next) => {
    if (isPublic(c.req.path)) return next();
    const now = sessionNow();
    let session = await currentSession(c, keys, revoked);
    if (!session && keys.tokens === undefined && c.req.method === "GET") {
      const value = keys.issue("anonymous", now);
      setCookie(c, SESSION_COOKIE, value, cookieOptions(c, SESSION_TTL_SECONDS));
      session = keys.verify(value, now);
    }
    if (!session) {
      c.header("cache-control", "no-store");
      if (isFragment(c)) {
        // A page refreshing itself (htmx) whose session ended goes to the sign-in form.
        if (c.req.header("hx-request") === "true") c.header("HX-Redirect", signInUrl(c));
        return c.text("sign in first", 401);
      }
      // A form sent after the session ended (a page left open overnight): refused, and nothing
      // changes, but as a page that says so and leads to the sign-in form.
      if (c.req.method !== "GET") uiError(401, "Your session ended, so nothing was changed.");
      const next = c.req.path + (new URL(c.req.url).search || "");
      return c.redirect(`/ui/sign-in?next=${encodeURIComponent(safeNext(next))}`, 302);
    }
    // Set first, so even the refusal below is a page with the navigation.
    c.set("session", session);
    c.set("csrf", keys.csrf(session.nonce));
    c.header("cache-control", "no-store");
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      if (!keys.checkCsrf(session.nonce, await sentCsrf(c))) {
        uiError(403, "missing or wrong CSRF token: reload the page and try again");
      }
    }
    return next();
  };
}

/** Reads and clears the one-shot message. */
export function takeFlash(c: UiContext): { text: string; error?: boolean } | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (!raw) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: "/ui" });
  const error = raw.startsWith("!");
  return { text: error ? raw.slice(1) : raw, error };
}

/** Sets the one-shot message shown by the next page. */
export function setFlash(c: UiContext, text: string, error = false): void {
  // Cut by code point: half an emoji (a lone surrogate) would make the cookie encoding throw.
  const short = Array.from(text).slice(0, 300).join("");
  setCookie(c, FLASH_COOKIE, (error ? "!" : "") + short, cookieOptions(c, 60));
}
