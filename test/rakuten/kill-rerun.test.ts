// kill -9 in the middle of a rakuten.item run, then a rerun: no target lost, none applied twice.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { openRakutenHarness, TEST_ENVIRON } from "./support/rakuten-harness.ts";
import type { ChildPlan } from "./support/run-job-child.ts";

const CHILD = fileURLToPath(new URL("./support/run-job-child.ts", import.meta.url));

describeEachDialect("rakuten.item: kill -9 mid-run, then rerun", (h) => {
  it("the rerun finishes every target; committed ones are skipped, none is applied twice", {
    timeout: 90_000,
  }, async () => {
    const t = await openRakutenHarness(h, { size: 60 });
    const codes = t.catalogue.itemCodes(60);
    const db = t.rt.config.database;
    const plan: ChildPlan = {
      databaseUrl: db.dialect === "postgres" ? db.url : `sqlite:${db.path}`,
      dataDir: t.rt.config.dataDir,
      settings: { base_url: t.server.url, requests_per_second: 20, use_env: false },
      environ: TEST_ENVIRON,
      jobName: "rakuten-item",
      jobType: "rakuten.item",
      params: { item_codes: codes, batch_size: 5, concurrency: 2 },
    };
    const child = spawn(process.execPath, ["--import", TSX_IMPORT, CHILD, JSON.stringify(plan)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d;
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    // Kill it once a couple of batches are committed and more are on their way.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const n = (await t.staging("item")).length;
      if (n >= 10) break;
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`child ended early: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const committed = await t.staging("item");
    expect(committed.length).toBeLessThan(60);
    // Everything committed was applied in the same transaction.
    expect(committed.every((s) => s.applied_version === 1)).toBe(true);
    const itemsBefore = await t.db.selectFrom("apl.item").selectAll().execute();
    expect(itemsBefore).toHaveLength(committed.length);

    const rerun = await t.run("rakuten.item", { item_codes: codes, batch_size: 5 });
    expect(rerun.status, rerun.error ?? "").toBe("succeeded");
    expect(rerun.summary).toMatchObject({
      total_targets: 60,
      unchanged_skipped: committed.length,
      changed: 60 - committed.length,
      failure_count: 0,
    });
    const staging = await t.staging("item");
    expect(staging.map((s) => s.source_id).sort()).toEqual([...codes].sort());
    expect(staging.every((s) => s.applied_version === 1)).toBe(true);
    const snapshots = await t.db
      .selectFrom("apl.market_snapshot")
      .select(["item_id", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("item_id")
      .execute();
    expect(snapshots).toHaveLength(60);
    expect(snapshots.every((s) => Number(s.n) === 1)).toBe(true);
  });
});
