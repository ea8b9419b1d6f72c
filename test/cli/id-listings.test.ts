// The ids other commands take can be found: rakuten items, email-analytics emails.
import path from "node:path";
import { expect, it } from "vitest";
import { SAMPLE_FILE } from "../../src/pipelines/email-analytics/fake/start-fake.ts";
import {
  FAKE_ACCESS_KEY,
  FAKE_APPLICATION_ID,
  startRakutenFake,
} from "../../src/pipelines/rakuten/fake/start-fake.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { startPipelineFake } from "../../src/testing/start-pipeline-fake.ts";

describeEachDialect("id listings", (h) => {
  it("rakuten items lists stored items newest first, with --limit and --json; their codes work", async () => {
    const { cwd, env: base } = await cliEnv(h, "tm-ids-");
    const fake = await startRakutenFake({ port: 0, host: "127.0.0.1" });
    try {
      const env = {
        ...base,
        TIDEMARK_RAKUTEN_URL: fake.url,
        RAKUTEN_APPLICATION_ID: FAKE_APPLICATION_ID,
        RAKUTEN_ACCESS_KEY: FAKE_ACCESS_KEY,
      };
      const cli = (...argv: string[]) => runCli(argv, { cwd, env });
      expect((await cli("rakuten", "items")).stdout).toMatch(/^No item stored yet/);
      const codes = fake.fake.catalogue.itemCodes(3);
      for (const [i, code] of codes.entries()) {
        const params = JSON.stringify({ genre_ids: [], item_codes: [code] });
        const add = await cli(
          "job",
          "add",
          `item-${i}`,
          "--type",
          "rakuten.item",
          "--params",
          params,
        );
        expect(add.code, add.stderr).toBe(0);
        const run = await cli("run", `item-${i}`);
        expect(run.code, run.stderr).toBe(0);
      }
      const json = await cli("rakuten", "items", "--json", "--limit", "2");
      expect(json.code, json.stderr).toBe(0);
      const items = JSON.parse(json.stdout) as Array<{ item_code: string }>;
      // The last one stored comes first.
      expect(items.map((i) => i.item_code)).toEqual([codes[2], codes[1]]);
      const table = await cli("rakuten", "items");
      for (const code of codes) expect(table.stdout).toContain(code);
      expect(table.stdout).toContain(`tidemark rakuten similar ${codes[2]}`);
      const raw = await cli("rakuten", "raw", "item", items[0]!.item_code);
      expect(raw.code, raw.stderr).toBe(0);
      const bad = await cli("rakuten", "items", "--limit", "0");
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^tidemark: --limit must be a whole number/);
    } finally {
      await fake.close();
    }
  });

  it("email-analytics emails lists imported emails newest first; stats takes their ids", async () => {
    const { cwd, env } = await cliEnv(h, "tm-ids-");
    const dataDir = env.TIDEMARK_DATA_DIR!;
    const running = await startPipelineFake("email-analytics", dataDir);
    const cli = (...argv: string[]) => runCli(argv, { cwd, env: { ...env, ...running.env } });
    expect((await cli("email-analytics", "emails")).stdout).toMatch(/^No email stored yet/);
    const imported = await cli("email-analytics", "import", path.join(dataDir, SAMPLE_FILE));
    expect(imported.code, imported.stderr).toBe(0);
    const json = await cli("email-analytics", "emails", "--json");
    expect(json.code, json.stderr).toBe(0);
    const emails = JSON.parse(json.stdout) as Array<{ id: string; submitted_at: string }>;
    expect(emails.length).toBeGreaterThan(0);
    const times = emails.map((e) => e.submitted_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(
      JSON.parse((await cli("email-analytics", "emails", "--json", "--limit", "1")).stdout),
    ).toHaveLength(1);
    const stats = await cli("email-analytics", "stats", emails[0]!.id);
    expect(stats.code, stats.stderr).toBe(0);
    const table = await cli("email-analytics", "emails");
    expect(table.stdout).toContain(`tidemark email-analytics stats ${emails[0]!.id}`);
  });

  it("mercari product add says the new id in a sentence", async () => {
    const { cwd, env } = await cliEnv(h, "tm-ids-");
    const r = await runCli(["mercari", "product", "add", "--name", "S", "--keyword", "Switch"], {
      cwd,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Added product 1: "S", keyword "Switch"\n/);
  });
});
