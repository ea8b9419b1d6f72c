// Bad input to `tidemark mercari …` and a credentialed TIDEMARK_MERCARI_URL: exit 2 with one
// line naming the option (or setting and variable) at fault, on both dialects.
import { expect, it } from "vitest";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";

describeEachDialect("tidemark mercari bad input", (h) => {
  /** A database with one product; `crawlEnv` applies to every command but the product's add. */
  async function setup(crawlEnv: NodeJS.ProcessEnv = {}) {
    const { cwd, env } = await cliEnv(h, "tm-mercari-input-");
    const added = await runCli(
      ["mercari", "product", "add", "--name", "S", "--keyword", "Switch"],
      { cwd, env },
    );
    expect(added.code, added.stderr).toBe(0);
    const cli = (...args: string[]) => runCli(args, { cwd, env: { ...env, ...crawlEnv } });
    return { cli, id: /^Added product (\d+)/.exec(added.stdout)?.[1] ?? "" };
  }

  /** Exit 2 with exactly one line on stderr, which must match `line`. */
  function refused(res: { code: number; stderr: string }, line: RegExp): void {
    expect(res.code, res.stderr).toBe(2);
    const lines = res.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  }

  it("trend: an impossible date or an inverted window names the option", async () => {
    const { cli, id } = await setup();
    refused(await cli("mercari", "trend", id, "--from", "2026-13-01"), /--from.*"2026-13-01"/);
    refused(await cli("mercari", "trend", id, "--to", "2026-02-31"), /--to.*"2026-02-31"/);
    refused(
      await cli("mercari", "trend", id, "--from", "2026-11-20", "--to", "2026-11-01"),
      /--to must be after --from \(2026-11-20.*2026-11-01/,
    );
    // A from after now, to left to its default (now): still an empty window.
    refused(await cli("mercari", "trend", id, "--from", "2999-01-01"), /from .*must be before to/);
    const leap = await cli("mercari", "trend", id, "--from", "2024-02-29", "--to", "2024-03-01");
    expect(leap.code, leap.stderr).toBe(0);
  });

  it("product add and update: a value the schema refuses names its option", async () => {
    const { cli, id } = await setup();
    const add = (...options: string[]) =>
      cli("mercari", "product", "add", "--name", "x", "--keyword", "k", ...options);
    refused(
      await add("--max-price", "200000000"),
      /^tidemark: mercari product add options: --max-price: Too big.*\(got 200000000\)$/,
    );
    refused(
      await add("--min-price", "9", "--max-price", "5"),
      /^tidemark: mercari product add options: --max-price: must be at least min_price \(9\)/,
    );
    refused(
      await cli("mercari", "product", "update", id, "--keyword", " "),
      /^tidemark: mercari product update options: --keyword: must not be blank/,
    );
    const listed = await cli("mercari", "product", "ls", "--json");
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
  });

  it("product add and update take an exclude keyword; none clears it", async () => {
    const { cli, id } = await setup();
    const product = async () =>
      JSON.parse((await cli("mercari", "product", "ls", "--json")).stdout)[0];
    const set = await cli(
      "mercari",
      "product",
      "update",
      id,
      "--exclude-keyword",
      "ケース ジャンク",
    );
    expect(set.code, set.stderr).toBe(0);
    expect(await product()).toMatchObject({
      keyword: "Switch",
      exclude_keyword: "ケース ジャンク",
    });
    expect((await cli("mercari", "product", "ls")).stdout).toMatch(/EXCLUDE[\s\S]*ケース ジャンク/);
    expect((await cli("mercari", "product", "update", id, "--exclude-keyword", "none")).code).toBe(
      0,
    );
    expect((await product()).exclude_keyword).toBeNull();
    refused(
      await cli("mercari", "product", "update", id, "--exclude-keyword", "x".repeat(201)),
      /--exclude-keyword: Too big/,
    );
  });

  it("results: a bad --limit or --status names only that option", async () => {
    const { cli, id } = await setup();
    for (const limit of ["0", "x", "501"]) {
      const res = await cli("mercari", "results", id, "--limit", limit);
      refused(res, new RegExp(`^tidemark: --limit must be .*got "?${limit}"?$`));
      expect(res.stderr).not.toContain("--status");
    }
    const status = await cli("mercari", "results", id, "--status", "gone");
    refused(status, /--status must be on_sale or sold, got "gone"/);
    expect(status.stderr).not.toContain("--limit");
    expect((await cli("mercari", "results", id, "--status", "sold", "--limit", "500")).code).toBe(
      0,
    );
  });

  it("a TIDEMARK_MERCARI_URL with a password is refused before any request", async () => {
    const { cli } = await setup({ TIDEMARK_MERCARI_URL: "http://user:hunter2pw@127.0.0.1:1" });
    const res = await cli("mercari", "crawl");
    refused(res, /base_url: must not contain a user name or password.*TIDEMARK_MERCARI_URL/);
    expect(res.stderr).not.toContain("hunter2pw");
  });
});
