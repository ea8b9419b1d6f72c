import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { systemClock } from "../../src/engine/clock/clock.ts";
import type { EngineTables } from "../../src/engine/engine-tables.ts";
import { LeaseStore } from "../../src/engine/leases/lease-store.ts";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import { writeCsvFile } from "../../src/pipelines/snapshots/fake/supplier-files.ts";
import { threadsForRun } from "../../src/pipelines/snapshots/stages/parse/early-threads.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";
import { cliFixture } from "./support/cli.ts";
import { CONFIG, csv } from "./support/harness.ts";

const GOOD = csv("A1,Молоток,5,100.00", "A2,Ключ,3,12.50");

describeEachDialect("tidemark snapshots CLI", (h) => {
  it("run: exit 0 PASS, 1 FAIL, 2 usage or supplier config, and prints what happened", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "s.csv", GOOD);
    let r = await f.run(["snapshots", "run", "acme"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^acme: PASS \(run acme_\d{8}T\d{6}Z_[0-9a-f]{6}\)/);
    expect(r.stdout).toMatch(/rows: 2 \(good 2, bad 0, bad_ratio 0\)/);
    expect(r.stdout).toMatch(/\+2 added, -0 removed, ~0 changed/);
    f.put("acme", "bad.csv", "sku,name\nA1,x\n");
    r = await f.run(["snapshots", "run", "acme"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/acme: FAIL REQUIRED_COLUMNS_MISSING/);
    expect(r.stdout).toMatch(/quarantine\/acme\/broken\/bad\.csv/);
    f.put("nocfg", "s.csv", GOOD);
    r = await f.run(["snapshots", "run", "nocfg"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/FAIL CONFIG_DQ_MISSING/);
    // The same failure through the engine's `tidemark run` of the supplier's job: exit 2 too.
    f.put("nocfg", "s2.csv", GOOD);
    r = await f.run(["run", "snapshots.nocfg"]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/CONFIG_DQ_MISSING/);
    expect((await f.run(["snapshots", "run"])).code).toBe(2);
    r = await f.run(["snapshots", "run", "../etc"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid supplier name/);
    r = await f.run(["snapshots", "run", "acme"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/acme: NO_INPUT/);
  });

  it("run --all processes every configured supplier and exits 1 if any FAILed", async () => {
    const f = await cliFixture(h);
    f.config("one");
    f.config("two");
    f.put("one", "s.csv", GOOD);
    f.put("two", "s.csv", "nonsense\n");
    const r = await f.run(["snapshots", "run", "--all", "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as Array<{ supplier: string; result: { status: string } }>;
    expect(out.map((o) => [o.supplier, o.result.status])).toEqual([
      ["one", "PASS"],
      ["two", "FAIL"],
    ]);
  });

  it("stderr names each supplier that did not pass with its own outcome and reason code", async () => {
    const f = await cliFixture(h);
    f.config("one");
    f.config("two");
    f.put("one", "s.csv", GOOD);
    f.put("two", "s.csv", "nonsense\n");
    f.put("three", "s.csv", GOOD);
    let r = await f.run(["snapshots", "run", "--all"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "tidemark: three: FAIL CONFIG_DQ_MISSING (supplier config); two: FAIL REQUIRED_COLUMNS_MISSING\n",
    );
    f.put("two", "t.csv", Buffer.from([0xff, 0x0a]));
    r = await f.run(["snapshots", "run", "two"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("tidemark: two: FAIL ENCODING_INVALID\n");
  });

  it("a parallel run of the same supplier is refused with exit 3", async () => {
    // Worker threads: the refused run starts its parse threads before it is refused.
    const f = await cliFixture(h, "    workers: 2\n    fsync: false\n");
    f.config(
      "acme",
      CONFIG.replace(
        "max_bad_ratio: 0.10",
        "max_bad_ratio: 0.10\ncategories: { from: column, column: category }",
      ),
    );
    await writeCsvFile(path.join(f.root, "inbox", "acme", "big.csv"), 300_000);
    f.put("acme", "big.csv", readFileSync(path.join(f.root, "inbox", "acme", "big.csv")));
    const first = f.spawn(["snapshots", "run", "acme"]);
    const db = await openDatabase(
      f.env.TIDEMARK_DATABASE_URL!.startsWith("sqlite:")
        ? { dialect: "sqlite", path: f.env.TIDEMARK_DATABASE_URL!.slice(7), busyTimeoutMs: 5000 }
        : { dialect: "postgres", url: f.env.TIDEMARK_DATABASE_URL! },
    );
    try {
      const leases = new LeaseStore(db, systemClock);
      const deadline = Date.now() + 60_000;
      while (!(await leases.isHeld("snapshots:acme").catch(() => false)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const second = await f.run(["snapshots", "run", "acme"]);
      expect(second.code).toBe(3);
      expect(second.stdout).toMatch(/acme: locked \(snapshots:acme held by acme_/);
      // The parse threads the refused run started before it tried to open are stopped.
      const left = threadsForRun("acme", 0);
      expect(left.idle).toBe(0);
      await left.close();
      const done = await first;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toMatch(/acme: PASS/);
      const runs = await typed<EngineTables>(db).selectFrom("tm_runs").select(["status"]).execute();
      expect(runs.map((r) => r.status)).toEqual(["succeeded"]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("status and read: monitoring figures as a table or JSON; read streams exactly the published facts", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "s.csv", GOOD, 120);
    await f.run(["snapshots", "run", "acme"]);
    f.put("acme", "s2.csv", GOOD, 60);
    await f.run(["snapshots", "run", "acme"]);
    let r = await f.run(["snapshots", "status"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/SUPPLIER\s+STATE\s+AGE\s+FACTS/);
    expect(r.stdout).toMatch(/acme\s+acme_\S+\s+\S+\s+2\s+NO_INPUT\s+0\s+2\s+0/);
    r = await f.run(["snapshots", "status", "acme", "--json"]);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({
      supplier: "acme",
      config: "ok",
      consecutive_fails: 0,
      identical_sha: { count: 2 },
      state: { fact_count: 2 },
    });
    r = await f.run(["snapshots", "read", "acme"]);
    expect(r.code).toBe(0);
    const link = path.join(f.root, "state", "current", "acme");
    expect(r.stdout).toBe(readFileSync(path.join(link, "facts.ndjson"), "utf8"));
    r = await f.run(["snapshots", "read", "other"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no published state/);
  });

  it("read into a reader that stops early (`| head`) ends quietly with exit 0", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    await writeCsvFile(path.join(f.root, "inbox", "acme", "many.csv"), 20_000);
    expect((await f.run(["snapshots", "run", "acme"])).code).toBe(0);
    const r = await spawnCli(["snapshots", "read", "acme"], {
      cwd: f.cwd,
      env: f.env,
      closeStdoutAfter: 1,
    });
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    expect(r.code).toBe(0);
  });

  it("snapshots.ingest is scheduled like any job; its runs hold the supplier's lease", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "s.csv", GOOD);
    let r = await f.run([
      "job",
      "add",
      "acme-hourly",
      "--type",
      "snapshots.ingest",
      "--params",
      '{"supplier":"acme"}',
      "--schedule",
      "5 * * * *",
    ]);
    expect(r.code, r.stderr).toBe(0);
    r = await f.run([
      "job",
      "add",
      "bad",
      "--type",
      "snapshots.ingest",
      "--params",
      '{"supplier":"../x"}',
    ]);
    expect(r.code).toBe(2);
    r = await f.run(["run", "acme-hourly", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      jobName: "acme-hourly",
      jobType: "snapshots.ingest",
      status: "succeeded",
      summary: { status: "PASS", supplier: "acme" },
    });
  });

  it("the snapshots commands offer no way to publish a FAIL or write into state_store", async () => {
    const f = await cliFixture(h);
    const r = await f.run(["snapshots", "--help"]);
    const commands = [...r.stdout.matchAll(/^ {2}(\w[\w-]*)/gm)].map((m) => m[1]);
    expect(commands.sort()).toEqual(["gc", "help", "read", "run", "status", "supplier"]);
    for (const cmd of ["run", "status", "read", "gc"]) {
      const help = await f.run(["snapshots", cmd, "--help"]);
      expect(help.stdout).not.toMatch(/--(force|publish|state)/);
    }
  });
});
