// `tidemark rakuten status | reapply | raw` and `tidemark run` of the rakuten jobs, through the CLI.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { openDatabase } from "../../src/infra/db/open-database.ts";
import { startRakutenFake } from "../../src/pipelines/rakuten/fake/start-fake.ts";
import { rakutenPipeline } from "../../src/pipelines/rakuten/index.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { TEST_ENVIRON } from "./support/rakuten-harness.ts";

const registry = new Registry([rakutenPipeline]);

async function setup(h: Parameters<Parameters<typeof describeEachDialect>[1]>[0]) {
  const { cwd, env, target } = await cliEnv(h, "tm-rakuten-cli-");
  const api = await startRakutenFake({
    size: 40,
    knobs: { rateLimit: false, retryAfterSeconds: 0 },
  });
  onTestFinished(() => api.close());
  writeFileSync(
    path.join(cwd, "tidemark.yaml"),
    `pipelines:\n  rakuten:\n    base_url: ${api.url}\n    requests_per_second: 50\n`,
  );
  const cli = (...argv: string[]) =>
    runCli(argv, { cwd, env: { ...env, ...TEST_ENVIRON }, registry });
  const sql = async <T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>) => {
    const db = await openDatabase(target);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };
  return { cwd, api, cli, sql };
}

describeEachDialect("tidemark rakuten commands", (h) => {
  it("status, raw history, reapply from the raw store with no API call, exit codes", {
    timeout: 60_000,
  }, async () => {
    const { api, cli, sql } = await setup(h);
    const codes = api.fake.catalogue.itemCodes(5);
    let res = await cli(
      "job",
      "add",
      "items",
      "--type",
      "rakuten.item",
      "--params",
      JSON.stringify({ item_codes: codes }),
    );
    expect(res.code, res.stderr).toBe(0);

    // A dry run fetches and compares, writes nothing.
    res = await cli("run", "items", "--dry-run", "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).summary).toMatchObject({
      dry_run: true,
      would_put: 5,
      would_apply: 5,
    });
    res = await cli("rakuten", "status", "--json");
    expect(
      JSON.parse(res.stdout).find((s: { entity: string }) => s.entity === "item"),
    ).toMatchObject({ ledger_rows: 0 });

    // --limit caps the targets.
    res = await cli("run", "items", "--limit", "2", "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).summary).toMatchObject({ total_targets: 2, changed: 2 });
    res = await cli("run", "items", "--json");
    expect(JSON.parse(res.stdout).summary).toMatchObject({
      total_targets: 5,
      changed: 3,
      unchanged_skipped: 2,
    });

    res = await cli("rakuten", "status", "--json");
    const item = JSON.parse(res.stdout).find((s: { entity: string }) => s.entity === "item");
    expect(item).toMatchObject({
      ledger_rows: 5,
      saved_today: 5,
      pending_reapply: 0,
      apply_version: 1,
    });
    expect(item.last_saved_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    res = await cli("rakuten", "status");
    expect(res.stdout).toMatch(
      /ENTITY\s+LEDGER ROWS\s+SAVED TODAY\s+PENDING RE-APPLY\s+LAST SAVED/,
    );

    // A price change: two raw versions; raw prints the current one, --hash an older one.
    const code = codes[0]!;
    const oldPrice = api.fake.catalogue.item(code)!.itemPrice;
    api.fake.catalogue.setPrice(code, oldPrice + 100);
    res = await cli("run", "items", "--json");
    expect(JSON.parse(res.stdout).summary).toMatchObject({ changed: 1, unchanged_skipped: 4 });
    res = await cli("rakuten", "raw", "item", code, "--json");
    expect(res.code, res.stderr).toBe(0);
    const raw = JSON.parse(res.stdout);
    expect(raw.versions).toHaveLength(2);
    expect(raw.shown.hash).toBe(raw.current_hash);
    expect(raw.shown.document.itemPrice).toBe(oldPrice + 100);
    const older = raw.versions.find((v: { hash: string }) => v.hash !== raw.current_hash)
      .hash as string;
    res = await cli("rakuten", "raw", "item", code, "--hash", older.slice(0, 12));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`hash=${older}.json`);
    expect(res.stdout).toContain(`"itemPrice":${oldPrice}`);
    res = await cli("rakuten", "raw", "item", code, "--hash", "ffff");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("no raw version with hash ffff");
    res = await cli("rakuten", "raw", "item", "nobody:1");
    expect(res.code).toBe(2);
    res = await cli("rakuten", "raw", "items", code);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown entity "items"');

    // Rows applied by an older apply version (as after a version bump) are pending re-apply;
    // `reapply` applies them from the raw store without calling the API.
    await sql((db) =>
      db.kysely
        .updateTable("apl.staging" as never)
        .set({ applied_version: 0 } as never)
        .where("entity" as never, "=", "item" as never)
        .execute(),
    );
    res = await cli("rakuten", "status", "--json");
    expect(
      JSON.parse(res.stdout).find((s: { entity: string }) => s.entity === "item").pending_reapply,
    ).toBe(5);
    const calls = api.fake.stats.calls;
    res = await cli("rakuten", "reapply", "item", "--dry-run");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("5 pending row(s), 5 would be re-applied");
    res = await cli("rakuten", "reapply", "item");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("5 pending row(s), 5 re-applied, 0 failed");
    expect(api.fake.stats.calls).toBe(calls);
    res = await cli("rakuten", "status", "--json");
    expect(
      JSON.parse(res.stdout).find((s: { entity: string }) => s.entity === "item").pending_reapply,
    ).toBe(0);
    // Re-applied rows add no duplicate snapshot.
    const snapshots = await sql((db) =>
      db.kysely
        .selectFrom("apl.market_snapshot" as never)
        .selectAll()
        .execute(),
    );
    expect(snapshots).toHaveLength(6);
    res = await cli("rakuten", "reapply", "things");
    expect(res.code).toBe(2);

    // A run over the failure rate exits 1.
    api.fake.setKnobs({ maintenance: true });
    res = await cli("run", "items");
    expect(res.code).toBe(1);
  });

  it("an unchanged rerun after a version bump re-applies through the job too (no raw put)", async () => {
    const { api, cli, sql } = await setup(h);
    const codes = api.fake.catalogue.itemCodes(3);
    await cli(
      "job",
      "add",
      "items",
      "--type",
      "rakuten.item",
      "--params",
      JSON.stringify({ item_codes: codes }),
    );
    expect((await cli("run", "items")).code).toBe(0);
    await sql((db) =>
      db.kysely
        .updateTable("apl.staging" as never)
        .set({ applied_version: 0 } as never)
        .execute(),
    );
    const res = await cli("run", "items", "--json");
    expect(JSON.parse(res.stdout).summary).toMatchObject({
      reapplied: 3,
      changed: 0,
      blob_puts: 0,
    });
  });
});
