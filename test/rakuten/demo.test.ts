// `tidemark demo --only rakuten`: the chain against the fakes, then the second day's rerun.
import { expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { rakutenPipeline } from "../../src/pipelines/rakuten/index.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

it("the demo runs the chain, then skips unchanged items, counts the one price change and not the image reorder", async () => {
  const cwd = testTempDir("tm-rakuten-demo-");
  const res = await runCli(["demo", "--only", "rakuten", "--data-dir", "demo"], {
    cwd,
    registry: new Registry([rakutenPipeline]),
  });
  expect(res.code, res.stderr).toBe(0);
  const out = res.stdout;
  for (const job of [
    "rakuten.ranking",
    "rakuten.item",
    "rakuten.genre",
    "rakuten.tag",
    "rakuten.is-active",
    "embedding-source",
    "embedding",
  ]) {
    expect(out).toContain(job);
  }
  expect(out).not.toMatch(/\bfailed\b(?! 0)/);
  const day2 = out.slice(out.indexOf("Day 2"));
  const item =
    /rakuten\.item\s+succeeded\s+targets (\d+), changed (\d+), unchanged skipped (\d+)/.exec(day2);
  expect(item, out).not.toBeNull();
  const [, targets, changed, skipped] = item!.map(Number);
  expect(changed).toBe(1);
  expect(skipped).toBe(targets! - 1);
  expect(day2).toContain("the image reorder did not count");
  expect(out).toContain("rakuten status");
});
