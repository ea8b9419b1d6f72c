import { Hono } from "hono";
import { html } from "hono/html";
import { NotFoundError, TidemarkError, UsageError } from "../../engine/errors.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { ServerServices } from "../server-services.ts";
import { registerAssets } from "./assets/serve-assets.ts";
import { requireSession, takeFlash } from "./auth-middleware.ts";
import { shell } from "./layout.ts";
import { registerOverview } from "./pages/overview.ts";
import type { PageShell } from "./pages/page-shell.ts";
import { registerPanels } from "./pages/panel.ts";
import { registerQueue } from "./pages/queue.ts";
import { registerRun } from "./pages/run.ts";
import { registerRuns } from "./pages/runs.ts";
import { registerSignIn } from "./pages/sign-in.ts";
import { SessionKeys } from "./session.ts";
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
 * (`apiTokens`; undefined = authentication off).
 */
export function createUiApp(services: ServerServices, logger: Logger): Hono<UiEnv> {
  const keys = new SessionKeys(services.apiTokens);
  const panels = services.runtime.registry.pipelines
    .filter((p) => p.panel)
    .map((p) => ({ name: p.name, title: p.panel!.title }));
  const page: PageShell = (c, o) =>
    shell({ ...o, panels, csrf: c.get("csrf"), flash: takeFlash(c) });

  const app = new Hono<UiEnv>();
  // Mounted at the root beside the API: every middleware here passes other paths through.
  const session = requireSession(keys);
  app.use("*", async (c, next) => {
    if (!isUiPath(c.req.path)) return next();
    await next();
    c.header("content-security-policy", CSP);
    c.header("x-frame-options", "DENY");
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
  });
  registerAssets(app);
  app.use("*", (c, next) => (isUiPath(c.req.path) ? session(c, next) : next()));
  registerSignIn(app, keys);
  registerOverview(app, services, page);
  registerRuns(app, services, page);
  registerRun(app, services, page);
  registerQueue(app, services, page);
  registerPanels(app, services, page);
  app.all("/ui/*", (c) => c.text("not found", 404));

  app.onError((err, c) => {
    const status = err instanceof NotFoundError ? 404 : err instanceof UsageError ? 400 : 500;
    if (status === 500) logger.error({ err, path: c.req.path }, "dashboard request failed");
    const message =
      err instanceof TidemarkError ? err.message : "internal error (see the server log)";
    const body = html`<h1>Something went wrong</h1><p class="flash error">${message}</p><p><a href="/ui">Back to the overview</a></p>`;
    return c.html(shell({ title: "Error", panels, csrf: c.get("csrf"), body }), status);
  });
  return app;
}
