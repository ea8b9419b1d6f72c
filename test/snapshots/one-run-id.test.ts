// One id per run: the id `snapshots run` prints is the one `runs show`, the manifest, the state and
// the history know, and the job a run belongs to is one `job show` knows.
import { readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cliFixture } from "./support/cli.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

const GOOD = csv("A1,Молоток,5,100.00", "A2,Ключ,3,12.50");

describeEachDialect("snapshots: one id per run", (h) => {
  it("snapshots run: the printed id is the engine run's, the manifest's, the state's and the history's", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "s.csv", GOOD);
    const r = await f.run(["snapshots", "run", "acme"]);
    expect(r.code, r.stderr).toBe(0);
    const runId = /^acme: PASS \(run (acme_\d{8}T\d{6}Z_[0-9a-f]{6})\)/.exec(r.stdout)?.[1];
    expect(runId, r.stdout).toBeDefined();
    expect(r.stdout).toContain(
      "Added job snapshots.acme (snapshots.ingest, no schedule) for this run",
    );

    const shown = await f.run(["runs", "show", runId!, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      runId,
      jobName: "snapshots.acme",
      jobType: "snapshots.ingest",
      status: "succeeded",
    });
    const job = await f.run(["job", "show", "snapshots.acme", "--json"]);
    expect(job.code, job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toMatchObject({ params: { supplier: "acme" }, schedule: null });

    const manifest = JSON.parse(
      readFileSync(path.join(f.root, "runs", runId!, "manifest.json"), "utf8"),
    );
    expect(manifest).toMatchObject({
      run_id: runId,
      engine_run_id: runId,
      state_path: `state_store/acme/${runId}`,
    });
    expect(readlinkSync(path.join(f.root, "state", "current", "acme"))).toContain(runId);
    const status = JSON.parse((await f.run(["snapshots", "status", "acme", "--json"])).stdout);
    expect(status).toMatchObject({ state: { run_id: runId }, last_run: { run_id: runId } });

    // The job exists now: the next run uses it and says nothing about adding one.
    const again = await f.run(["snapshots", "run", "acme"]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("Added job");
    const jobs = JSON.parse((await f.run(["job", "ls", "--json"])).stdout) as Array<{
      name: string;
    }>;
    expect(jobs.map((j) => j.name)).toEqual(["snapshots.acme"]);
  });

  it("a stored job of the supplier is used as it is; tidemark run prints the readable summary", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "s.csv", GOOD);
    const add = await f.run([
      "job",
      "add",
      "acme-hourly",
      "--type",
      "snapshots.ingest",
      "--params",
      '{"supplier":"acme"}',
    ]);
    expect(add.code, add.stderr).toBe(0);
    const r = await f.run(["run", "acme-hourly"]);
    expect(r.code, r.stderr).toBe(0);
    // The engine's head line and the pipeline's lines name the same id.
    const id = /^acme-hourly: succeeded \(run (acme_\S+)\)/.exec(r.stdout)?.[1];
    expect(id, r.stdout).toBeDefined();
    expect(r.stdout).toContain(`acme: PASS (run ${id})`);
    expect(r.stdout).toMatch(/rows: 2 \(good 2, bad 0, bad_ratio 0\)/);
    expect(r.stdout).toMatch(/\+2 added, -0 removed/);
    expect(r.stdout).not.toMatch(/^\s*(input_sha256|good_rows|recovery):/m);

    f.put("acme", "s2.csv", csv("A1,Молоток,6,100.00"));
    const run = await f.run(["snapshots", "run", "acme", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ job: "acme-hourly", kind: "result" });
    const jobs = JSON.parse((await f.run(["job", "ls", "--json"])).stdout) as Array<{
      name: string;
    }>;
    expect(jobs.map((j) => j.name)).toEqual(["acme-hourly"]);
  });

  it("a run whose engine id does not name the supplier (queued under the job's name) gets a supplier id", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG);
    await t.put("acme", "s.csv", GOOD);
    const engineId = "acme-hourly_20260101T000000Z_abcdef";
    const report = await executeRun(t.rt, {
      jobName: "acme-hourly",
      jobType: "snapshots.ingest",
      params: { supplier: "acme" },
      runId: engineId,
    });
    expect(report.runId).toBe(engineId);
    const result = report.summary as { status: string; run_id: string };
    expect(result.status).toBe("PASS");
    expect(result.run_id).toMatch(/^acme_\d{8}T\d{6}Z_[0-9a-f]{6}$/);
    expect(t.json(`runs/${result.run_id}/manifest.json`)).toMatchObject({
      run_id: result.run_id,
      engine_run_id: engineId,
    });
  });

  it("status, read, run and gc refuse an unknown supplier with exit 2 and one line, adding nothing", async () => {
    const f = await cliFixture(h);
    for (const argv of [
      ["snapshots", "status", "nosuch"],
      ["snapshots", "read", "nosuch"],
      ["snapshots", "run", "nosuch"],
      ["snapshots", "gc", "--supplier", "nosuch"],
    ]) {
      const r = await f.run(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/unknown supplier nosuch: no config file .*nosuch\.yaml/);
      expect(r.stderr).toContain("tidemark snapshots supplier add nosuch");
    }
    expect((await f.run(["job", "ls", "--json"])).stdout).toBe("[]\n");
    expect((await f.run(["runs", "ls", "--json"])).stdout).toBe("[]\n");
    // Known by its inbox alone: it runs (and FAILs for want of a config, exit 2, as before).
    f.put("inboxonly", "s.csv", GOOD);
    const r = await f.run(["snapshots", "status", "inboxonly"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/inboxonly \(config missing\)/);
  });
});
