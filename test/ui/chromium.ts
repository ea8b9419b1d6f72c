import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext } from "playwright-core";
import { chromium } from "playwright-core";

/** Debian's Chromium, installed by .ci/run when missing. */
export const CHROMIUM = "/usr/bin/chromium";
/** Screenshots of the pages, kept as test artifacts (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/ui/", import.meta.url));

/** Run the browser suites where Chromium exists, and always in CI (which installs it). */
export const browserAvailable = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** Headless Chromium, quiet: no network of its own, no GPU, no sandbox (containers). */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

/**
 * A browser context that never leaves the machine: requests to other hosts than `origin` (the
 * product images panels link to, on the sources' own hosts) are answered with a blank pixel,
 * so a test machine without internet sees the pages as a user would, without load errors.
 */
export async function offlineContext(browser: Browser, origin: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 200, contentType: "image/png", body: PIXEL }),
  );
  return context;
}
