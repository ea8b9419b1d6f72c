import { existsSync, readdirSync, utimesSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { runGc } from "../../src/pipelines/snapshots/stages/gc/run-gc.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cliFixture } from "./support/cli.ts";
import { CONFIG, csv, type SnapHarness, snapshotHarness } from "./support/harness.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Publishes three states an hour apart; returns their run ids, oldest first. */
async function threeStates(t: SnapHarness): Promise<string[]> {
  const ids: string[] = [];
  for (const qty of [1, 2, 3]) {
    await t.put("acme", `d${qty}.csv`, csv(`A1,a,${qty},1.00`));
    const { result } = await t.ingest("acme");
    expect(result.status).toBe("PASS");
    ids.push(result.run_id);
    t.clock.advance(HOUR);
  }
  return ids;
}

describeEachDialect("snapshots gc", (h) => {
  it("keeps the active state and states replaced less than state_retention_hours ago", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    const [s1, s2, s3] = await threeStates(t);
    // now = T0+3h: s1 replaced at T0+1h (2 h ago), s2 at T0+2h (1 h ago).
    t.clock.advance(10.5 * HOUR); // s1 replaced 12.5 h ago, s2 11.5 h ago
    let report = await runGc(t.services, { dryRun: false });
    expect(report.deleted.filter((i) => i.kind === "state").map((i) => i.key)).toEqual([
      `state_store/acme/${s1}`,
    ]);
    expect(report.kept.find((i) => i.key.endsWith(s2!))?.why).toMatch(
      /replaced 11\.5 h ago \(< 12 h\)/,
    );
    expect(existsSync(t.file(`state_store/acme/${s1}`))).toBe(false);
    expect(existsSync(t.file(`state_store/acme/${s2}`))).toBe(true);
    t.clock.advance(HOUR);
    report = await runGc(t.services, { dryRun: false });
    expect(report.deleted.filter((i) => i.kind === "state").map((i) => i.key)).toEqual([
      `state_store/acme/${s2}`,
    ]);
    // The active state is never a candidate, however old.
    t.clock.advance(1000 * DAY);
    await runGc(t.services, { dryRun: false });
    expect(readdirSync(t.file("state_store/acme"))).toEqual([s3]);
    expect((await t.stateFacts("acme"))[0]).toMatchObject({ payload: { qty: 3 } });
  });

  it("state_retention_hours is per supplier", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", `${CONFIG}state_retention_hours: 48\n`);
    const [s1] = await threeStates(t);
    t.clock.advance(30 * HOUR);
    const report = await runGc(t.services, { dryRun: false });
    expect(report.deleted.filter((i) => i.kind === "state")).toEqual([]);
    expect(existsSync(t.file(`state_store/acme/${s1}`))).toBe(true);
  });

  it("accepted_runs are kept for their retention (and the active state's forever); old quarantine, archive and runs go", async () => {
    const t = await snapshotHarness(h);
    t.config(
      "acme",
      `${CONFIG}retention: { accepted_runs_days: 180, quarantine_days: 30, archive_days: 30, runs_days: 30 }\n`,
    );
    const [s1, s2, s3] = await threeStates(t);
    await t.put("acme", "junk.csv", "nonsense\n");
    const failed = (await t.ingest("acme")).result;
    t.clock.advance(31 * DAY);
    let report = await runGc(t.services, { dryRun: false });
    const kinds = (k: string) => report.deleted.filter((i) => i.kind === k).map((i) => i.key);
    expect(kinds("quarantine")).toEqual(["quarantine/acme/broken/junk.csv"]);
    expect(kinds("archive").sort()).toEqual([
      "archive/acme/accepted/d1.csv",
      "archive/acme/accepted/d2.csv",
      "archive/acme/accepted/d3.csv",
    ]);
    // Every run older than 30 days except the run of the active state.
    expect(kinds("run").sort()).toEqual(
      [`runs/${failed.run_id}`, `runs/${s1}`, `runs/${s2}`].sort(),
    );
    expect(existsSync(t.file(`runs/${s3}/manifest.json`))).toBe(true);
    expect(kinds("accepted")).toEqual([]);
    t.clock.advance(150 * DAY);
    report = await runGc(t.services, { dryRun: false });
    expect(report.deleted.filter((i) => i.kind === "accepted")).toHaveLength(2);
    expect(
      readdirSync(t.file("accepted_runs/acme"), { recursive: true }).filter((n) =>
        String(n).endsWith(".json"),
      ),
    ).toHaveLength(1);
    // With its accepted record gone, an old file could be accepted again — by design, after 180 days.
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(s3);
  });

  it("--dry-run deletes nothing; a supplier being ingested (lock held) is skipped", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    const [s1] = await threeStates(t);
    t.clock.advance(20 * HOUR);
    const dry = await runGc(t.services, { dryRun: true });
    expect(dry.deleted.map((i) => i.key)).toContain(`state_store/acme/${s1}`);
    expect(existsSync(t.file(`state_store/acme/${s1}`))).toBe(true);
    await t.rt.leases.tryAcquire("snapshots:acme", "someone", 60_000);
    const locked = await runGc(t.services, { dryRun: false });
    expect(locked.skipped).toEqual([
      { supplier: "acme", reason: "locked", why: "locked: a run of this supplier is in progress" },
    ]);
    expect(existsSync(t.file(`state_store/acme/${s1}`))).toBe(true);
  });

  it("an invalid supplier config: exit 2 for gc --supplier; gc of all collects the others and exits 2", async () => {
    const f = await cliFixture(h);
    f.config("good");
    f.put("good", "d.csv", csv("A1,a,1,1.00"));
    expect((await f.run(["snapshots", "run", "good"])).code).toBe(0);
    f.config("kx", "min_fact_count: [oops\n");
    f.put("kx", "d.csv", csv("A1,a,1,1.00"));
    // An old broken file of good's, past quarantine_days: the pass over all suppliers deletes it.
    f.put("good", "x.csv", "nonsense\n");
    expect((await f.run(["snapshots", "run", "good"])).code).toBe(1);
    const old = new Date(Date.now() - 40 * DAY);
    utimesSync(path.join(f.root, "quarantine", "good", "broken", "x.csv"), old, old);

    let r = await f.run(["snapshots", "gc", "--supplier", "kx"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^tidemark: gc of kx not done: invalid config: .*kx\.yaml.*\n$/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);

    r = await f.run(["snapshots", "gc"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/deleted 1 item\(s\)/);
    expect(r.stdout).toMatch(/skipped kx: invalid config/);
    expect(r.stderr).toBe(
      "tidemark: gc skipped supplier(s) with an invalid config: kx (the others were collected)\n",
    );
    expect(existsSync(path.join(f.root, "quarantine", "good", "broken", "x.csv"))).toBe(false);
  });
});
