// Every registered pipeline's panel in real Chromium, over the data of `tidemark demo` (each
// pipeline against its fake): it renders, every chart with data draws one line per series, and
// the console stays clean. A pipeline that adds a panel is covered here from its first commit.
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelines } from "../../src/pipelines/index.ts";
import { ARTIFACTS, browserAvailable, launchChromium, offlineContext } from "./chromium.ts";
import { type DemoServe, startDemoServe, UI_TOKEN } from "./ui-serve.ts";

const withPanel = pipelines.filter((p) => p.panel && p.demo);

describe.runIf(browserAvailable && withPanel.length > 0)(
  "every pipeline's panel in Chromium",
  () => {
    let serve: DemoServe;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
      serve = await startDemoServe({ allPipelines: true });
      browser = await launchChromium();
      page = await (await offlineContext(browser, serve.url)).newPage();
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
        await page.screenshot({
          path: path.join(ARTIFACTS, `all-panel-${pipeline.name}.png`),
          fullPage: true,
        });
        expect(errors).toEqual([]);
      });
    }

    it("at phone width, no page is wider than the screen, even with the longest run id", async () => {
      await page.setViewportSize({ width: 375, height: 812 });
      await page.goto(`${serve.url}/ui/runs`);
      const hrefs = await page.$$eval("#runs th a", (as) => as.map((a) => a.getAttribute("href")!));
      // Run ids carry their job's name: the longest make the widest run page title.
      const longest = hrefs.sort((a, b) => b.length - a.length)[0]!;
      const paths = ["/ui", "/ui/runs", "/ui/queue", longest];
      for (const p of [...paths, ...withPanel.map((x) => `/ui/pipelines/${x.name}`)]) {
        await page.goto(`${serve.url}${p}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect({ p, width }).toEqual({ p, width: 375 });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });
  },
);
