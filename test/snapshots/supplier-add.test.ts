// `tidemark snapshots supplier add`: what a newcomer runs instead of making folders by hand.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { loadSupplierConfig } from "../../src/pipelines/snapshots/stages/intake/config/load-supplier-config.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

describeEachDialect("tidemark snapshots supplier add", (h) => {
  it("writes a commented config with every key, creates the inbox and the job, and says what next", async () => {
    const f = await cliFixture(h);
    const r = await f.run(["snapshots", "supplier", "add", "acme"]);
    expect(r.code, r.stderr).toBe(0);
    const configDir = path.join(f.dataDir, "etl_ops", "config");
    const text = readFileSync(path.join(configDir, "acme.yaml"), "utf8");
    for (const key of [
      "min_fact_count: 1",
      "max_bad_ratio: 0.1",
      "allow_empty_snapshot: false",
      "format:",
      "encoding:",
      "delimiter:",
      "quote:",
      "extra_columns:",
      "key:",
      "columns:",
      "categories:",
      "file_stability_window:",
      "atomic_rename:",
      "state_retention_hours:",
      "retention:",
      "alerts:",
      "max_state_age_hours:",
    ]) {
      expect(text).toContain(key);
    }
    expect(text).toMatch(/^# /m);
    const loaded = loadSupplierConfig(configDir, "acme");
    expect(loaded.ok && loaded.config).toMatchObject({
      min_fact_count: 1,
      max_bad_ratio: 0.1,
      allow_empty_snapshot: false,
    });
    const inbox = path.join(f.root, "inbox", "acme");
    expect(readdirSync(inbox)).toEqual([]);
    expect(r.stdout).toContain(inbox);
    expect(r.stdout).toContain("tidemark snapshots run acme");

    const job = await f.run(["job", "show", "snapshots.acme", "--json"]);
    expect(job.code, job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toMatchObject({
      type: "snapshots.ingest",
      params: { supplier: "acme" },
      schedule: null,
    });

    // Dropping a file where it said is all it takes.
    f.put("acme", "stock.csv", csv("A1,Молоток,5,100.00"));
    const run = await f.run(["snapshots", "run", "acme"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^acme: PASS/);
    expect(run.stdout).not.toContain("Added job");
  });

  it("takes the DQ values and a schedule from options", async () => {
    const f = await cliFixture(h);
    const r = await f.run([
      "snapshots",
      "supplier",
      "add",
      "brinex",
      "--dq-min-fact-count",
      "500",
      "--dq-max-bad-ratio",
      "0.25",
      "--dq-allow-empty-snapshot",
      "--schedule",
      "5 * * * *",
      "--timezone",
      "Europe/Moscow",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const loaded = loadSupplierConfig(path.join(f.dataDir, "etl_ops", "config"), "brinex");
    expect(loaded.ok && loaded.config).toMatchObject({
      min_fact_count: 500,
      max_bad_ratio: 0.25,
      allow_empty_snapshot: true,
    });
    const job = JSON.parse((await f.run(["job", "show", "snapshots.brinex", "--json"])).stdout);
    expect(job).toMatchObject({ schedule: "5 * * * *", timezone: "Europe/Moscow" });
  });

  it("refuses an invalid name, a bad option or schedule and an existing config with exit 2, writing nothing", async () => {
    const f = await cliFixture(h);
    const configDir = path.join(f.dataDir, "etl_ops", "config");
    const refusals: Array<[string[], RegExp]> = [
      [["../etc"], /invalid supplier name/],
      [["acme", "--dq-max-bad-ratio", "1.5"], /--dq-max-bad-ratio: expected a number from 0 to 1/],
      [["acme", "--dq-min-fact-count", "-1"], /--dq-min-fact-count: expected a whole number/],
      [["acme", "--dq-min-fact-count", "many"], /--dq-min-fact-count/],
      [["acme", "--schedule", "every hour"], /every hour|schedule|cron/i],
    ];
    for (const [args, message] of refusals) {
      const r = await f.run(["snapshots", "supplier", "add", ...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(existsSync(path.join(configDir, "acme.yaml"))).toBe(false);
      expect(existsSync(path.join(f.root, "inbox", "acme"))).toBe(false);
    }
    expect((await f.run(["job", "ls", "--json"])).stdout).toBe("[]\n");

    expect((await f.run(["snapshots", "supplier", "add", "acme"])).code).toBe(0);
    const mine = "# my own rules\nmin_fact_count: 7\n";
    writeFileSync(path.join(configDir, "acme.yaml"), mine);
    const again = await f.run(["snapshots", "supplier", "add", "acme"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /acme.*already has a config file .*acme\.yaml \(--force overwrites it\)/,
    );
    expect(readFileSync(path.join(configDir, "acme.yaml"), "utf8")).toBe(mine);

    const forced = await f.run(["snapshots", "supplier", "add", "acme", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain("(overwritten)");
    expect(loadSupplierConfig(configDir, "acme").ok).toBe(true);
  });

  it("refuses when the job snapshots.<name> exists for something else", async () => {
    const f = await cliFixture(h);
    const add = await f.run([
      "job",
      "add",
      "snapshots.acme",
      "--type",
      "snapshots.ingest",
      "--params",
      '{"supplier":"other"}',
    ]);
    expect(add.code, add.stderr).toBe(0);
    const r = await f.run(["snapshots", "supplier", "add", "acme"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/job snapshots\.acme exists but does not ingest supplier acme/);
    expect(existsSync(path.join(f.dataDir, "etl_ops", "config", "acme.yaml"))).toBe(false);
  });
});
