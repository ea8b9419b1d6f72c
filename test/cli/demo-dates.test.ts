// No date the demo stores or prints lies ahead of the clock.
import { expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

// The mercari demo crawls twice through the queue: slow on a busy two-core machine.
it("the mercari demo's sales, listings and printed dates are all in the past", {
  timeout: 180_000,
}, async () => {
  const cwd = testTempDir("tm-demo-dates-");
  const demo = await runCli(["demo", "--only", "mercari"], { cwd });
  expect(demo.code, demo.stderr).toBe(0);
  const now = Date.now();
  const c = ["-c", "tidemark-demo/tidemark.yaml"];
  const sold = await runCli(
    [...c, "mercari", "results", "1", "--status", "sold", "--json", "--limit", "500"],
    { cwd },
  );
  expect(sold.code, sold.stderr).toBe(0);
  const items = (JSON.parse(sold.stdout) as { items: Array<{ sold_out_at: string | null }> }).items;
  const dated = items.map((i) => i.sold_out_at).filter((d): d is string => d !== null);
  expect(dated.length).toBeGreaterThan(0);
  expect(dated.filter((d) => Date.parse(d) > now)).toEqual([]);
  const printed = [
    ...demo.stdout.matchAll(/\d{4}-\d\d-\d\d(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z)?/g),
  ].map((m) => m[0]);
  expect(printed.filter((d) => Date.parse(d) > now)).toEqual([]);
});
