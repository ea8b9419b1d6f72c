import { Hono } from "hono";
import { TrustedProxies } from "../../infra/config/trusted-proxies.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { ServerServices } from "../server-services.ts";
import { registerAssets } from "./assets/serve-assets.ts";
import { requireSession, takeFlash } from "./auth-middleware.ts";
import { shell } from "./layout.ts";
import { errorBody, errorStatus, uiError } from "./pages/error-page.ts";
import { registerJob } from "./pages/job.ts";
import { registerOverview } from "./pages/overview.ts";
import type { PageShell } from "./pages/page-shell.ts";
import { registerPanels } from "./pages/panel.ts";
import { registerQueue } from "./pages/queue.ts";
import { registerRun } from "./pages/run.ts";
import { registerRuns } from "./pages/runs.ts";
import { registerSignIn } from "./pages/sign-in.ts";
import { RevokedSessions } from "./revoked-sessions.ts";
import { SessionKeys } from "./session.ts";
import { SignInThrottle } from "./sign-in-throttle.ts";
import type { UiEnv } from "./ui-env.ts";

/** Scripts only from /ui/assets; no inline script, no framing, nothing sent elsewhere. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // uPlot and htmx set element styles from script.
  "style-src 'self' 'unsafe-inline'",
  // Panels may show product images from the sources' own hosts.
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** True for the dashboard's paths (`/ui`, `/ui/…`). */
export function isUiPath(path: string): boolean {
  return path === "/ui" || path.startsWith("/ui/");
}

/**
 * The dashboard under `/ui`: server-rendered pages (hono/html) with htmx for live parts and
 * uPlot for charts, both served from the package. Sessions come from the API tokens
 * (`apiTokens`; undefined = authentication off); sign-outs and failed sign-ins are kept in the
 * database, so every `serve` process on it honours them.
 */
export function createUiApp(services: ServerServices, logger: Logger): Hono<UiEnv> {
  const keys = new SessionKeys(services.apiTokens);
  const revoked = new RevokedSessions(services.runtime.db);
  const throttle = new SignInThrottle(services.runtime.db, services.runtime.clock);
  const panels = services.runtime.registry.pipelines
    .filter((p) => p.panel)
    .map((p) => ({ name: p.name, title: p.panel!.title }));
  const signOut = keys.tokens !== undefined;
  const page: PageShell = (c, o) =>
    shell({ ...o, panels, signOut, csrf: c.get("csrf"), flash: takeFlash(c) });

  const app = new Hono<UiEnv>();
  // Mounted at the root beside the API: every middleware here passes other paths through.
  const session = requireSession(keys, revoked);
  app.use("*", async (c, next) => {
    if (!isUiPath(c.req.path)) return next();
    await next();
    c.header("content-security-policy", CSP);
    c.header("x-frame-options", "DENY");
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
  });
  registerAssets(app);
  // `/ui/` or `/ui/runs/` (typed, or kept as a bookmark) is the page without the slash.
  app.use("*", async (c, next) => {
    const path = c.req.path;
    if (!isUiPath(path) || !path.endsWith("/") || c.req.method !== "GET") return next();
    return c.redirect(path.replace(/\/+$/, "") + new URL(c.req.url).search, 301);
  });
  app.use("*", (c, next) => (isUiPath(c.req.path) ? session(c, next) : next()));
  const proxies = new TrustedProxies(services.runtime.config?.server?.trustedProxies ?? []);
  registerSignIn(app, keys, { revoked, throttle, proxies });
  registerOverview(app, services, page);
  registerJob(app, services, page);
  registerRuns(app, services, page);
  registerRun(app, services, page);
  registerQueue(app, services, page);
  registerPanels(app, services, page);
  app.all("/ui/*", (c) => uiError(404, `no page at ${c.req.path}`));

  app.onError((err, c) => {
    const status = errorStatus(err);
    if (status >= 500) logger.error({ err, path: c.req.path }, "dashboard request failed");
    const { title, body } = errorBody(err, status);
    c.header("cache-control", "no-store");
    return c.html(shell({ title, panels, signOut, csrf: c.get("csrf"), body }), status);
  });
  return app;
}
