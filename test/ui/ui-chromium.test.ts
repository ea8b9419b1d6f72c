// The dashboard end to end in real Chromium (Debian's `chromium`, driven by playwright-core)
// against a real `tidemark serve` over the books and snapshots demo data.
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, browserAvailable, launchChromium, offlineContext } from "./chromium.ts";
import { type DemoServe, startDemoServe, UI_TOKEN } from "./ui-serve.ts";

// Skipped only outside CI when Chromium is missing; .ci/run installs it, so CI always runs it.
describe.runIf(browserAvailable)("dashboard in Chromium", () => {
  let serve: DemoServe;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];

  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const go = (p: string) => page.goto(`${serve.url}${p}`);

  beforeAll(async () => {
    serve = await startDemoServe();
    browser = await launchChromium();
    context = await offlineContext(browser, serve.url);
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("sends a visitor to sign in, and signs in with an API token from the keyboard", async () => {
    await go("/");
    expect(new URL(page.url()).pathname).toBe("/ui/sign-in");
    await shot("sign-in");
    await page.getByLabel("API token").fill(UI_TOKEN);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${serve.url}/ui`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Overview");
    expect(page.url()).not.toContain(UI_TOKEN);
  });

  it("shows the overview: every job, runs of the last 24 h by status, failing jobs first", async () => {
    const jobs = await page
      .locator("#jobs tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-job")));
    expect(jobs).toEqual(expect.arrayContaining(["consultant-books", "snapshots.acme"]));
    const succeeded = Number(await page.locator('[data-count="succeeded"]').textContent());
    expect(succeeded).toBeGreaterThan(0);
    // The demo's scheduled jobs are disabled, and the overview says why.
    await expect(page.locator('tr[data-job="consultant-books"]').textContent()).resolves.toContain(
      "disabled (demo)",
    );
    await expect(page.locator("[data-disabled-reason]").textContent()).resolves.toContain(
      "never reaches a real service",
    );
    await shot("overview");
    // Keyboard: the first Tab reaches the skip link.
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe(
      "Skip to content",
    );
  });

  it("refreshes the overview by itself when a run ends elsewhere", async () => {
    const total = () =>
      page
        .locator("[data-count]")
        .evaluateAll((els) => els.reduce((n, e) => n + Number(e.textContent), 0));
    const before = await total();
    const url = page.url();
    // Keyboard focus survives the refresh.
    await page.getByRole("button", { name: "Run snapshots.acme-xlsx now" }).focus();
    expect((await serve.cli("run", "snapshots.acme-xlsx")).code).toBe(0);
    await page.waitForFunction(
      (n) =>
        [...document.querySelectorAll("[data-count]")].reduce(
          (sum, e) => sum + Number(e.textContent),
          0,
        ) > n,
      before,
      { timeout: 12_000 },
    );
    expect(await total()).toBe(before + 1);
    expect(page.url()).toBe(url);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe(
      "run-snapshots.acme-xlsx",
    );
  });

  it("runs a job now and shows the run live until it ends", async () => {
    await page.getByRole("button", { name: "Run snapshots.acme now" }).click();
    await page.waitForURL(/\/ui\/runs\/acme_/);
    // htmx polls the run fragment: queued → running → an end state, without a reload.
    await page.waitForSelector(
      '#run[data-status="succeeded"], #run[data-status="skipped"], #run[data-status="failed"]',
      {
        timeout: 20_000,
      },
    );
    await expect(page.locator("#run").getAttribute("data-status")).resolves.toMatch(
      /succeeded|skipped/,
    );
    await expect(page.getByRole("heading", { name: /^Params/ }).count()).resolves.toBe(1);
    await shot("run-live");
  });

  it("filters runs by job and status and opens a run with its error", async () => {
    await go("/ui/runs");
    await page.getByLabel("Job").selectOption("snapshots.acme");
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/job=snapshots\.acme&status=failed/);
    const rows = page.locator("#runs tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    await shot("runs");
    await rows.first().locator("th a").click();
    await page.waitForURL(/\/ui\/runs\/acme_/);
    await expect(page.locator("#run").getAttribute("data-status")).resolves.toBe("failed");
    await expect(page.locator("pre.error").textContent()).resolves.toContain(
      "REQUIRED_COLUMNS_MISSING",
    );
    await shot("run");
  });

  /** Flips a job's enabled state with its button on the current page, and back. */
  async function toggleTwice(job: string, back: string) {
    const startsEnabled =
      (await page.getByRole("button", { name: `Disable ${job}`, exact: true }).count()) === 1;
    const first = startsEnabled ? ["Disable", "disabled", false] : ["Enable", "enabled", true];
    const second = startsEnabled ? ["Enable", "enabled", true] : ["Disable", "disabled", false];
    for (const [verb, word, enabled] of [first, second] as const) {
      await page.getByRole("button", { name: `${verb} ${job}`, exact: true }).click();
      await page.waitForURL(`${serve.url}${back}`);
      await expect(page.locator(".flash").textContent()).resolves.toContain(`${job} ${word}`);
      expect((await serve.cli("job", "show", job, "--json")).stdout).toContain(
        `"enabled": ${enabled}`,
      );
    }
  }

  it("disables and enables a job", async () => {
    await go("/ui");
    await toggleTwice("snapshots.acme", "/ui");
  });

  it("books panel: quota, cursors, last digest; resets a cursor after confirmation", async () => {
    await go("/ui/pipelines/books");
    await expect(page.locator("#panel").textContent()).resolves.toContain("quota used today");
    await expect(
      page.getByRole("region", { name: "Last digest" }).locator("tbody tr").count(),
    ).resolves.toBe(1);
    await shot("panel-books");
    await page.getByRole("button", { name: "Reset" }).first().click();
    await expect(page.locator("h1").textContent()).resolves.toContain(
      "Reset every collect cursor of job consultant-books",
    );
    await shot("confirm-reset");
    await page.getByRole("button", { name: "Yes, do it" }).click();
    await page.waitForURL(`${serve.url}/ui/pipelines/books`);
    await expect(page.locator(".flash").textContent()).resolves.toContain(
      "Reset 1 cursor(s) for job: consultant-books",
    );
    await expect(
      page.getByRole("region", { name: "Collect cursors" }).textContent(),
    ).resolves.toContain("No cursor yet");
  });

  it("snapshots panel: suppliers with their state and a facts chart with one series per supplier", async () => {
    await go("/ui/pipelines/snapshots");
    const suppliers = page.getByRole("region", { name: "Suppliers" }).locator("tbody tr");
    expect(await suppliers.count()).toBe(2);
    const chart = page.getByRole("img", { name: /^Facts published per run/ });
    await page.waitForSelector(".chart[data-series] canvas");
    await expect(chart.getAttribute("data-series")).resolves.toBe("2");
    await expect(chart.getAttribute("data-series-expected")).resolves.toBe("2");
    await shot("panel-snapshots");
  });

  it("queue page: per queue its figures and messages, re-drive after confirmation", async () => {
    await go("/ui/queue");
    const runQueue = page.locator('[id="queue-tidemark.run"]');
    await expect(runQueue.locator('[data-figure="dead"]').textContent()).resolves.toBe("1");
    await expect(runQueue.locator('tr[data-state="dead"]').count()).resolves.toBe(1);
    await shot("queue");
    await page.getByRole("button", { name: "Re-drive every dead letter of tidemark.run" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe(
      "Re-drive every dead letter of tidemark.run?",
    );
    await shot("confirm-redrive");
    await page.getByRole("button", { name: "Re-drive" }).click();
    await expect(page.locator(".flash").textContent()).resolves.toContain(
      "Re-drove 1 message(s) of tidemark.run",
    );
  });

  it("job page: opened from the overview, history charts drawn, disable and enable from it", async () => {
    await go("/ui");
    await page.locator('tr[data-job="snapshots.acme"] th a').click();
    await page.waitForURL(`${serve.url}/ui/jobs/snapshots.acme`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Job snapshots.acme");
    await page.waitForSelector(".chart[data-series] canvas");
    await expect(page.locator("[data-success-rate]").textContent()).resolves.toMatch(
      /% of the last/,
    );
    await expect(page.locator("#job-runs tbody tr").count()).resolves.toBeGreaterThan(0);
    await shot("job");
    await toggleTwice("snapshots.acme", "/ui/jobs/snapshots.acme");
  });

  it("a run's summary reads as a table", async () => {
    await go("/ui/runs?job=snapshots.acme&status=succeeded");
    await page.locator("#runs tbody tr th a").first().click();
    await page.waitForURL(/\/ui\/runs\/acme_/);
    await expect(page.locator("#summary tbody tr").count()).resolves.toBeGreaterThan(0);
    await shot("run-summary");
  });

  it("is usable at phone width: a menu for the navigation, nothing wider than the screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await go("/ui");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.isVisible()).resolves.toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    await expect(nav.isVisible()).resolves.toBe(true);
    await shot("menu-phone");
    await page.getByRole("link", { name: "Runs" }).click();
    await page.waitForURL(`${serve.url}/ui/runs`);
    const run = await page.locator("#runs th a").first().getAttribute("href");
    for (const [name, p] of [
      ["overview", "/ui"],
      ["runs", "/ui/runs"],
      ["run", run!],
      ["job", "/ui/jobs/snapshots.acme"],
      ["queue", "/ui/queue"],
      ["panel-books", "/ui/pipelines/books"],
      ["panel-snapshots", "/ui/pipelines/snapshots"],
    ] as const) {
      await go(p);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect({ p, width }).toEqual({ p, width: 390 });
      // Every button is within the screen's width (none pushed off to the right).
      const off = await page.$$eval("main button", (bs) =>
        bs.filter((b) => b.getBoundingClientRect().right > 390).map((b) => b.textContent),
      );
      expect({ p, off }).toEqual({ p, off: [] });
      await shot(`${name}-phone`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("signs out; afterwards pages send to sign-in and fragments are refused", async () => {
    await go("/ui");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/ui\/sign-in/);
    await go("/ui/runs");
    expect(new URL(page.url()).pathname).toBe("/ui/sign-in");
    const status = await page.evaluate(async () => (await fetch("/ui/fragments/overview")).status);
    expect(status).toBe(401);
    // That 401 is the one console error we caused on purpose.
    const unexpected = consoleErrors.filter((e) => !/fragments\/overview|401/.test(e));
    expect(unexpected).toEqual([]);
  });
});
