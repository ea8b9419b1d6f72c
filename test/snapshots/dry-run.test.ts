// `snapshots run --dry-run` says what a real run would do and writes nothing: no job, no run
// (engine or snapshots), no file move, no recovery.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import { HistoryRepo } from "../../src/pipelines/snapshots/repos/history-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { type CliFixture, cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

const D1 = csv("A1,a,5,1.00", "A2,b,3,1.00");
const D2 = csv("A1,a,6,1.00", "A3,c,1,1.00");

/** Jobs, engine runs and snapshots runs in the fixture's database. */
async function records(f: CliFixture, supplier: string) {
  const db = await openDatabase(f.target);
  try {
    const k = typed<{ tm_jobs: { name: string }; tm_runs: { run_id: string } }>(db);
    return {
      jobs: (await k.selectFrom("tm_jobs").select("name").execute()).map((r) => r.name),
      runs: (await k.selectFrom("tm_runs").select("run_id").execute()).map((r) => r.run_id),
      snapshotRuns: (await new HistoryRepo(db).recentRuns(supplier, 100)).map((r) => r.run_id),
    };
  } finally {
    await db.close();
  }
}

describeEachDialect("snapshots run --dry-run", (h) => {
  it("writes nothing: no job added, no run recorded, the file stays, status unchanged", async () => {
    const f = await cliFixture(h);
    f.config("dry");
    f.put("dry", "d.csv", D1);
    const r = await f.run(["snapshots", "run", "dry", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("dry: PLANNED (dry run, nothing written)");
    expect(r.stdout).toContain("dry run: would process d.csv");
    expect(r.stdout).toContain("A real run would add job snapshots.dry");
    expect(r.stdout).not.toMatch(/Added job/);
    expect(await records(f, "dry")).toEqual({ jobs: [], runs: [], snapshotRuns: [] });
    expect(readdirSync(path.join(f.root, "inbox", "dry"))).toEqual(["d.csv"]);
    const status = JSON.parse((await f.run(["snapshots", "status", "dry", "--json"])).stdout);
    expect(status).toMatchObject({ last_run: null, inbox_files: 1 });

    // The real run then does what the dry run said.
    const real = await f.run(["snapshots", "run", "dry"]);
    expect(real.stdout).toMatch(/dry: PASS/);
    expect(real.stdout).toContain("Added job snapshots.dry");
  });

  it("after a kill past the switch it says recovery comes first, and changes nothing", async () => {
    const f = await cliFixture(h);
    f.config("dry");
    f.put("dry", "d1.csv", D1, 120);
    expect((await f.run(["snapshots", "run", "dry"])).code).toBe(0);
    f.put("dry", "dr.csv", D2, 60);
    const killed = await f.spawn(["snapshots", "run", "dry"], {
      TIDEMARK_SNAPSHOTS_CRASH_AT: "after-switch",
    });
    expect(killed.code).not.toBe(0);
    const before = await records(f, "dry");

    // Until the dead run's lease expires, a dry run answers what a real run would: locked.
    const early = await f.run(["snapshots", "run", "dry", "--dry-run"]);
    expect(early.code).toBe(3);
    expect(early.stdout).toMatch(/^dry: locked \(snapshots:dry held by dry_\S+\)$/m);
    await new Promise((resolve) => setTimeout(resolve, 1200));

    const r = await f.run(["snapshots", "run", "dry", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("dry run: nothing to process");
    expect(r.stdout).toMatch(
      /would first recover: interrupted run\(s\) dry_\S+; redo: accepted_runs record, manifest, input archived/,
    );
    expect(await records(f, "dry")).toEqual(before);
    expect(existsSync(path.join(f.root, "inbox", "dry", "dr.csv"))).toBe(true);

    // What the real run does.
    const real = JSON.parse((await f.run(["snapshots", "run", "dry", "--json"])).stdout);
    expect(real.result).toMatchObject({
      status: "NO_INPUT",
      recovery: { repaired: ["accepted_runs record", "input archived", "manifest"] },
    });
  });
});
