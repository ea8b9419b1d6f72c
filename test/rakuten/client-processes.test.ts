import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { engineMigrations } from "../../src/engine/migrations/index.ts";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { openDatabase } from "../../src/infra/db/open-database.ts";
import type { RakutenClientStats } from "../../src/pipelines/rakuten/client/index.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { clientFixture } from "./support/client-fixture.ts";
import type { RakutenChildPlan } from "./support/rakuten-client-child.ts";

const CHILD = fileURLToPath(new URL("./support/rakuten-client-child.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

interface ChildReport {
  stats: RakutenClientStats;
  failures: number;
}

/** Starts a child; `go()` releases it; `report` resolves once it has exited. */
function startChild(plan: RakutenChildPlan) {
  const child = spawn(process.execPath, ["--import", TSX, CHILD, JSON.stringify(plan)], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`child exited (${code}) before ready:\n${err}`)));
  });
  const report = exited.then((code) => {
    const line = out.split("\n").find((l) => l.startsWith("{"));
    if (code !== 0 || !line) throw new Error(`child exited (${code}):\n${out}\n${err}`);
    return JSON.parse(line) as ChildReport;
  });
  return { ready, go: () => child.stdin.end("go\n"), report };
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
