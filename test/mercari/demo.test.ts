// `tidemark demo --only mercari`: a product, two crawls while the fake's catalogue moves, the
// detail messages worked off the queue, the cheapest listings and the price trend; its hints
// work as printed.
import { expect, it } from "vitest";
import { hintArgv, runnableHints } from "../../src/testing/demo-hints.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

it("the mercari demo crawls twice, prints the cheapest listings and the trend, and its hints work", {
  timeout: 120_000,
}, async () => {
  const cwd = testTempDir("tm-mercari-demo-");
  const res = await runCli(["demo", "--only", "mercari"], { cwd });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/Crawl 1: job mercari-hourly succeeded/);
  expect(res.stdout).toMatch(/Crawl 2: job mercari-hourly succeeded/);
  expect(res.stdout).toMatch(/The catalogue moves 6 hours: \d+ listed/);
  expect(res.stdout).toMatch(/workers handled \d+ messages .*, 0 failed/);
  expect(res.stdout).toMatch(/Cheapest on sale:\nPRICE\s+MERCARI ID\s+NAME\n\d+/);
  expect(res.stdout).toMatch(/WEEK OF\s+SOLD\s+MIN\s+P25\s+MEDIAN\s+P75\s+MAX\n\d{4}-\d\d-\d\d/);
  // A brand search: its katakana, romaji and sub-brand listings are all kept; its no-price
  // hits are counted and reach neither cheapest nor the trend.
  expect(res.stdout).toMatch(/Brand search "comme des garcons" \(product 2\)/);
  for (const name of ["COMME des GARÇONS HOMME", "コムデギャルソン", "junya watanabe"]) {
    expect(res.stdout).toMatch(new RegExp(`^${name}\\s+[1-9]\\d*$`, "m"));
  }
  // Long lines are wrapped with an indent: read them unwrapped.
  expect(res.stdout.replace(/\n +/g, " ")).toMatch(
    /No price: [1-9]\d* hits showed .*: counted as no_price, not stored; 0 of them among the cheapest, 0 in the trend/,
  );
  const hints = runnableHints(res.stdout);
  expect(hints.length).toBeGreaterThanOrEqual(3);
  for (const hint of hints) {
    const out = await runCli(hintArgv(hint), { cwd });
    expect({ hint, code: out.code, stderr: out.stderr }).toEqual({ hint, code: 0, stderr: "" });
  }
});
