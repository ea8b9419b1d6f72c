import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { engineMigrations } from "../../src/engine/migrations/index.ts";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { openDatabase } from "../../src/infra/db/open-database.ts";
import type { RakutenClientStats } from "../../src/pipelines/rakuten/client/rakuten-client.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { startGatedChild } from "../../src/testing/gated-child.ts";
import { clientFixture } from "./support/client-fixture.ts";
import type { RakutenChildPlan } from "./support/rakuten-client-child.ts";

const CHILD = fileURLToPath(new URL("./support/rakuten-client-child.ts", import.meta.url));

interface ChildReport {
  stats: RakutenClientStats;
  failures: number;
}

/** Starts a child; `go()` releases it; `report` resolves once it has exited. */
function startChild(plan: RakutenChildPlan) {
  return startGatedChild<ChildReport>(CHILD, plan);
}

describeEachDialect("rakuten clients in two processes", (h) => {
  it("share 1 request/second per application id: the fake answers no 429", {
    timeout: 90_000,
  }, async () => {
    const f = await clientFixture({ knobs: { rateLimit: true, requestsPerSecond: 1 } });
    const target = await h.freshTarget();
    const db = await openDatabase(target);
    try {
      await migrateToLatest(db, [engineMigrations]);
    } finally {
      await db.close();
    }
    const itemCodes = f.catalogue.itemCodes(3);
    const base = { target, url: f.url, itemCodes, calls: 3 };
    const children = [
      startChild({ ...base, job: "ranking" }),
      startChild({ ...base, job: "item" }),
    ];
    await Promise.all(children.map((c) => c.ready));
    const started = Date.now();
    for (const c of children) c.go();
    const reports = await Promise.all(children.map((c) => c.report));
    const elapsed = Date.now() - started;
    expect(reports.map((r) => r.failures)).toEqual([0, 0]);
    expect(reports.map((r) => r.stats.rateLimited)).toEqual([0, 0]);
    expect(f.fake.stats).toMatchObject({ calls: 6, rateLimited: 0 });
    expect(f.fake.stats.byApi).toMatchObject({ ranking: 3, item: 3 });
    // Six calls at one per second take at least five seconds.
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
  });
});
