import { createHash } from "node:crypto";
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

const versions = new Map<string, string>();

/**
 * An asset's URL for the page shell, with a digest of its content (`?v=`): after an upgrade the
 * pages ask for the new file instead of an hour-old cached one that no longer fits them.
 */
export function assetUrl(file: keyof typeof ASSETS | string): string {
  const asset = ASSETS[file];
  if (!asset) return `/ui/assets/${file}`;
  let v = versions.get(file);
  if (v === undefined) {
    v = createHash("sha256").update(asset.body()).digest("hex").slice(0, 12);
    versions.set(file, v);
  }
  return `/ui/assets/${file}?v=${v}`;
}
