// `tidemark mercari …` end to end (in-process CLI) against the Mercari fake, on both dialects.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { startMercariFakeServer } from "../../src/pipelines/mercari/fake/start-fake.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { SWITCH_GROUP } from "./support/world.ts";

describeEachDialect("tidemark mercari", (h) => {
  it("product add/ls/update/enable/disable/rm, crawl, worker --drain, results, trend; bad input exits 2", {
    timeout: 120_000,
  }, async () => {
    const fake = await startMercariFakeServer({ seed: 9, groups: [SWITCH_GROUP] });
    try {
      const { cwd, env } = await cliEnv(h, "tm-mercari-cli-");
      writeFileSync(
        path.join(cwd, "tidemark.yaml"),
        "pipelines:\n  mercari:\n    requests_per_second: 0\n    page_size: 50\n    retry_max_attempts: 1\n",
      );
      const cli = (...args: string[]) =>
        runCli(args, { cwd, env: { ...env, TIDEMARK_MERCARI_URL: fake.url } });

      const missing = await cli("mercari", "product", "add", "--keyword", "Switch");
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--name");
      const badPrice = await cli(
        "mercari",
        "product",
        "add",
        "--name",
        "S",
        "--keyword",
        "k",
        "--min-price",
        "ten",
      );
      expect(badPrice.code).toBe(2);
      expect(badPrice.stderr).toContain("--min-price");
      const badRange = await cli(
        "mercari",
        "product",
        "add",
        "--name",
        "S",
        "--keyword",
        "k",
        "--min-price",
        "9",
        "--max-price",
        "1",
      );
      expect(badRange.code).toBe(2);
      expect(badRange.stderr.trim().split("\n")).toHaveLength(1);
      expect((await cli("mercari", "product", "ls", "--json")).stdout.trim()).toBe("[]");

      const added = await cli(
        "mercari",
        "product",
        "add",
        "--name",
        "Switch",
        "--keyword",
        "Nintendo Switch",
        "--category-id",
        "701",
        "--min-price",
        "15000",
      );
      expect(added.code, added.stderr).toBe(0);
      const id = /^Added product (\d+):/.exec(added.stdout)?.[1] ?? "";
      expect(added.stdout).toContain(`tidemark mercari results ${id}`);
      expect(id).toMatch(/^\d+$/);
      const off = await cli(
        "mercari",
        "product",
        "add",
        "--name",
        "Off",
        "--keyword",
        "Nintendo Switch",
        "--disabled",
      );
      const offId = /^Added product (\d+) \(disabled\):/.exec(off.stdout)?.[1] ?? "";
      const ls = await cli("mercari", "product", "ls");
      expect(ls.stdout).toContain("Nintendo Switch");
      expect(ls.stdout).toMatch(/Off .* no/);
      expect((await cli("mercari", "product", "update", id, "--max-price", "40000")).code).toBe(0);
      expect((await cli("mercari", "product", "update", "999", "--name", "x")).code).toBe(2);
      expect((await cli("mercari", "product", "update", id)).code).toBe(2);
      expect((await cli("mercari", "product", "disable", id)).code).toBe(0);
      expect((await cli("mercari", "product", "enable", id)).code).toBe(0);
      const products = JSON.parse((await cli("mercari", "product", "ls", "--json")).stdout);
      expect(products[0]).toMatchObject({
        category_id: 701,
        min_price: 15000,
        max_price: 40000,
        enabled: true,
      });

      const crawl = await cli("mercari", "crawl");
      expect(crawl.code, crawl.stderr).toBe(0);
      expect(crawl.stdout).toMatch(new RegExp(`^${id}\\s+first`, "m"));
      expect(crawl.stdout).not.toMatch(new RegExp(`^${offId}\\s`, "m"));
      const drain = await cli("worker", "--drain");
      expect(drain.code, drain.stderr).toBe(0);

      const results = JSON.parse(
        (await cli("mercari", "results", id, "--json", "--limit", "500")).stdout,
      );
      expect(results.total).toBeGreaterThan(0);
      const sold = results.items.filter((r: { status: string }) => r.status === "sold");
      expect(sold.length).toBeGreaterThan(0);
      expect(sold.every((r: { sold_out_at: string | null }) => r.sold_out_at !== null)).toBe(true);
      expect((await cli("mercari", "results", id)).stdout).toContain("SOLD AT (APPROX.)");
      const trend = await cli("mercari", "trend", id, "--bucket", "week");
      expect(trend.code).toBe(0);
      expect(trend.stdout).toMatch(/WEEK OF\s+SOLD\s+MIN\s+P25\s+MEDIAN\s+P75\s+MAX/);
      expect((await cli("mercari", "trend", id, "--bucket", "month")).code).toBe(2);
      expect((await cli("mercari", "cheapest", id, "--limit", "2")).stdout).toContain("MERCARI ID");

      fake.fake.knobs.block = "empty";
      const before = (await cli("mercari", "results", id, "--json", "--limit", "500")).stdout;
      const blocked = await cli("mercari", "crawl", "--product", id);
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain("blocked");
      expect((await cli("mercari", "results", id, "--json", "--limit", "500")).stdout).toBe(before);
      expect((await cli("mercari", "crawl", "--product", "abc")).code).toBe(2);

      const rm = await cli("mercari", "product", "rm", id);
      expect(rm.stdout).toContain(`deleted with ${results.total}`);
      expect((await cli("mercari", "results", id)).code).toBe(2);
    } finally {
      await fake.close();
    }
  });
});
