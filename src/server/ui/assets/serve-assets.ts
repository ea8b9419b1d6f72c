import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { UiApp } from "../ui-env.ts";
import { APP_CSS } from "./app-css.ts";
import { APP_JS } from "./app-js.ts";

/** A static file the dashboard serves. */
interface Asset {
  readonly type: string;
  body(): string;
}

/**
 * Reads a file of an installed package (htmx.org, uplot: dependencies of this package, so they
 * are in node_modules wherever Tidemark runs, from source or from the bundle), once.
 */
function packageFile(specifier: string): () => string {
  let cached: string | undefined;
  return () => {
    cached ??= readFileSync(createRequire(import.meta.url).resolve(specifier), "utf8");
    return cached;
  };
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** The dashboard's assets by file name, served under `/ui/assets/`. */
const ASSETS: Record<string, Asset> = {
  "htmx.min.js": { type: JS, body: packageFile("htmx.org/dist/htmx.min.js") },
  "uplot.min.js": { type: JS, body: packageFile("uplot/dist/uPlot.iife.min.js") },
  "uplot.min.css": { type: CSS, body: packageFile("uplot/dist/uPlot.min.css") },
  "app.css": { type: CSS, body: () => APP_CSS },
  "app.js": { type: JS, body: () => APP_JS },
};

/** `GET /ui/assets/<file>`: public (the sign-in page needs them), cached for an hour. */
export function registerAssets(app: UiApp): void {
  app.get("/ui/assets/:file", (c) => {
    const asset = ASSETS[c.req.param("file")];
    if (!asset) return c.text("not found", 404);
    return c.body(asset.body(), 200, {
      "content-type": asset.type,
      "cache-control": "public, max-age=3600",
    });
  });
}

/** Asset URLs, for the page shell. */
export const assetUrl = (file: keyof typeof ASSETS | string) => `/ui/assets/${file}`;
