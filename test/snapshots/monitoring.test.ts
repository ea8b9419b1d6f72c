import { Registry as PromRegistry } from "prom-client";
import { expect, it } from "vitest";
import { snapshotsPipeline } from "../../src/pipelines/snapshots/index.ts";
import { snapshotMetricFamilies } from "../../src/pipelines/snapshots/monitoring/metrics.ts";
import { snapshotsStatus } from "../../src/pipelines/snapshots/monitoring/status.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

const GOOD = csv("A1,a,5,1.00");

describeEachDialect("snapshots monitoring", (h) => {
  it("state age, FAILs in a row and the same SHA in a row, with alerts at the thresholds", async () => {
    const t = await snapshotHarness(h);
    t.config(
      "acme",
      `${CONFIG}alerts: { consecutive_fails: 2, identical_sha_streak: 3, max_state_age_hours: 24 }\n`,
    );
    await t.put("acme", "d1.csv", GOOD);
    await t.ingest("acme");
    t.clock.advance(90_000);
    let [s] = await snapshotsStatus(t.services);
    expect(s).toMatchObject({
      supplier: "acme",
      config: "ok",
      consecutive_fails: 0,
      alerts: [],
      state: { age_seconds: 90, fact_count: 1 },
    });

    for (const n of [1, 2]) {
      await t.put("acme", `junk${n}.csv`, `nonsense ${n}\n`);
      await t.ingest("acme");
    }
    [s] = await snapshotsStatus(t.services);
    expect(s).toMatchObject({
      consecutive_fails: 2,
      last_run: { status: "FAIL", reason_code: "REQUIRED_COLUMNS_MISSING" },
    });
    expect(s!.alerts).toEqual(["REPEATED_FAIL"]);

    // The supplier keeps sending the accepted file again: drift.
    for (const n of [1, 2]) {
      await t.put("acme", `again${n}.csv`, GOOD);
      await t.ingest("acme");
    }
    [s] = await snapshotsStatus(t.services);
    expect(s!.identical_sha.count).toBe(2);
    expect(s!.alerts).not.toContain("SHA_DRIFT");
    await t.put("acme", "again3.csv", GOOD);
    await t.ingest("acme");
    [s] = await snapshotsStatus(t.services);
    expect(s!.identical_sha.count).toBe(3);
    expect(s!.alerts).toContain("SHA_DRIFT");

    t.clock.advance(25 * 3_600_000);
    [s] = await snapshotsStatus(t.services);
    expect(s!.alerts).toContain("STATE_STALE");

    await t.put("acme", "d2.csv", csv("A1,a,6,1.00"));
    await t.ingest("acme");
    [s] = await snapshotsStatus(t.services);
    expect(s).toMatchObject({ consecutive_fails: 0, identical_sha: { count: 1 }, alerts: [] });
  });

  it("exposes the figures as Prometheus metrics through the pipeline's metrics hook", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "d1.csv", GOOD);
    await t.ingest("acme");
    t.clock.advance(5000);
    const registry = new PromRegistry();
    // What `serve` and `worker` do for every pipeline when they build /metrics.
    await snapshotsPipeline.metrics?.(registry, t.services);
    const scraped = await registry.metrics();
    expect(scraped).toContain("# TYPE tidemark_snapshots_state_age_seconds gauge");
    expect(scraped).toContain('tidemark_snapshots_state_age_seconds{supplier="acme"} 5');
    expect(scraped).toContain('tidemark_snapshots_consecutive_fails{supplier="acme"} 0');
    expect(scraped).toContain('tidemark_snapshots_last_run_pass{supplier="acme"} 1');
    expect(scraped).toContain('tidemark_snapshots_state_facts{supplier="acme"} 1');
    expect(scraped).toContain('tidemark_snapshots_identical_sha_streak{supplier="acme"} 1');
    expect(snapshotMetricFamilies([]).map((f) => f.name)).toContain("tidemark_snapshots_alert");
  });
});
