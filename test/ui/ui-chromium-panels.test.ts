// Every page of the dashboard in real Chromium over the data of the full `tidemark demo` (each
// pipeline against its fake): every panel renders, every chart with data draws one line per
// series, and the console stays clean. Each page — overview, runs, queue, every job page, a run
// of every pipeline, every panel — is saved at 1280 and 390 px, and none is wider than a phone
// at 390 px. A pipeline that adds a panel is covered here from its first commit.
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelines } from "../../src/pipelines/index.ts";
import { ARTIFACTS, browserAvailable, launchChromium, offlineContext } from "./chromium.ts";
import { type DemoServe, startDemoServe, UI_TOKEN } from "./ui-serve.ts";

const withPanel = pipelines.filter((p) => p.panel && p.demo);

/** "/ui/jobs/a.b" → "job-a.b": a file name for a page's screenshot. */
const shotName = (p: string) =>
  p === "/ui" ? "overview" : p.replace(/^\/ui\//, "").replace(/[/?&=]+/g, "-");

describe.runIf(browserAvailable && withPanel.length > 0)("every page in Chromium", () => {
  let serve: DemoServe;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    serve = await startDemoServe({ allPipelines: true });
    browser = await launchChromium();
    context = await offlineContext(browser, serve.url);
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
    await page.goto(`${serve.url}/ui/sign-in`);
    await page.getByLabel("API token").fill(UI_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${serve.url}/ui`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  for (const pipeline of withPanel) {
    it(`${pipeline.name}: its panel shows the demo's data`, async () => {
      errors.length = 0;
      await page.goto(`${serve.url}/ui/pipelines/${pipeline.name}`);
      await expect(page.locator("h1").textContent()).resolves.toBe(pipeline.panel!.title);
      await expect(page.locator("#panel > *").count()).resolves.toBeGreaterThan(0);
      // Charts with data: drawn (canvas) with as many series as the panel gave.
      const charts = page.locator(".chart:has(canvas)");
      await page.waitForLoadState("networkidle");
      const drawn = await charts.evaluateAll((els) =>
        els.map((e) => ({
          got: e.getAttribute("data-series"),
          want: e.getAttribute("data-series-expected"),
        })),
      );
      for (const c of drawn) expect(c.got).toBe(c.want);
      // No series is labelled with a placeholder.
      const labels = await page.$$eval(".chart .u-legend th", (ths) =>
        ths.map((t) => t.textContent),
      );
      expect(labels.filter((l) => /^\s*-*\s*$/.test(l ?? ""))).toEqual([]);
      expect(errors).toEqual([]);
    });
  }

  it.runIf(withPanel.some((p) => p.name === "rakuten"))(
    "rakuten: one pair of lines per entity, never one line over every entity's runs",
    async () => {
      await page.goto(`${serve.url}/ui/pipelines/rakuten`);
      const chart = page.getByRole("img", { name: /^Changed vs unchanged/ });
      const name = (await chart.getAttribute("aria-label")) ?? "";
      // "… : genre changed, genre unchanged, item changed, …": each entity has its own series.
      expect(name).toMatch(/item changed/);
      expect(name).not.toMatch(/: changed, unchanged$/);
    },
  );

  it.runIf(withPanel.some((p) => p.name === "books"))(
    "books: the yes/no chart of exhausted cursors is drawn on a 0 to 1 axis",
    async () => {
      await page.goto(`${serve.url}/ui/pipelines/books`);
      const chart = page.getByRole("img", { name: /^Cursor exhausted after each run/ });
      await page.waitForLoadState("networkidle");
      await expect(chart.getAttribute("data-y-range")).resolves.toBe("0..1");
      // A chart without a fixed axis is fitted to its values, as before.
      const position = page.getByRole("img", { name: /^Cursor position/ });
      await expect(position.getAttribute("data-y-range")).resolves.not.toBe("0..1");
    },
  );

  it("every page at 1280 and 390 px, none wider than a phone's screen", async () => {
    await page.goto(`${serve.url}/ui/runs`);
    const runHrefs = await page.$$eval("#runs th a", (as) =>
      as.map((a) => a.getAttribute("href")!),
    );
    await page.goto(`${serve.url}/ui`);
    const jobHrefs = await page.$$eval("#jobs th a", (as) =>
      as.map((a) => a.getAttribute("href")!),
    );
    // A run of every job type shown (the longest id makes the widest title), every job page.
    const runs = new Map<string, string>();
    for (const h of runHrefs) {
      const prefix = h.split("/").pop()!.split("_")[0]!;
      if (!runs.has(prefix) || h.length > runs.get(prefix)!.length) runs.set(prefix, h);
    }
    const pages = [
      "/ui",
      "/ui/runs",
      "/ui/queue",
      ...jobHrefs,
      ...runs.values(),
      ...withPanel.map((x) => `/ui/pipelines/${x.name}`),
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const p of pages) {
        await page.goto(`${serve.url}${p}`);
        await page.waitForLoadState("networkidle");
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width === 390) expect({ p, scroll }).toEqual({ p, scroll: 390 });
        // A number, a duration ("236 ms") or a time ("10 s ago") is never broken over two lines.
        const broken = await page.$$eval("td.num, td.when", (cells) =>
          cells
            .filter((c) => {
              const range = document.createRange();
              range.selectNodeContents(c);
              const tops = [...range.getClientRects()].map((r) => Math.round(r.top));
              return new Set(tops).size > 1;
            })
            .map((c) => c.textContent),
        );
        expect({ p, width, broken }).toEqual({ p, width, broken: [] });
        await page.screenshot({
          path: path.join(ARTIFACTS, `all-${shotName(p)}-${width}.png`),
          fullPage: true,
        });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(errors).toEqual([]);
  }, 240_000);

  it.runIf(withPanel.some((p) => p.name === "mercari"))(
    "mercari: a product image whose host cannot be reached shows a placeholder",
    async () => {
      const offline = await browser.newContext({ viewport: { width: 1280, height: 2000 } });
      try {
        await offline.addCookies(await context.cookies());
        await offline.route(
          (url) => url.origin !== serve.url,
          (route) => route.abort("addressunreachable"),
        );
        const p = await offline.newPage();
        await p.goto(`${serve.url}/ui/pipelines/mercari`);
        await p.waitForLoadState("networkidle");
        const images = await p.locator("td .panel-img").count();
        expect(images).toBeGreaterThan(0);
        await p.waitForFunction(
          () => document.querySelectorAll("img.panel-img").length === 0,
          null,
          {
            timeout: 10_000,
          },
        );
        await expect(p.locator(".img-missing").count()).resolves.toBe(images);
        await p.screenshot({ path: path.join(ARTIFACTS, "all-mercari-images-unreachable.png") });
      } finally {
        await offline.close();
      }
    },
  );
});
