// A run paused past its lease (GC pause, frozen VM, kill -STOP) must not publish when it wakes.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { openDatabase } from "../../src/infra/db/open-database.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { type CliFixture, cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

// The test CLI that installs the crash hook: TIDEMARK_SNAPSHOTS_PAUSE_AT stops it at that stage.
const FAULT_CLI = new URL("../fixtures/snapshots-crash-cli.ts", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const current = (f: CliFixture) =>
  path.basename(readlinkSync(path.join(f.root, "state", "current", "acme")));

/** The process's state letter from /proc (T = stopped). */
function procState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
  } catch {
    return undefined;
  }
}

function passManifests(f: CliFixture): string[] {
  const runs = path.join(f.root, "runs");
  return readdirSync(runs).filter((r) => {
    const file = path.join(runs, r, "manifest.json");
    return existsSync(file) && JSON.parse(readFileSync(file, "utf8")).status === "PASS";
  });
}

describeEachDialect("snapshots: a run that lost its lease", (h) => {
  it("paused before publishing, overtaken, then resumed: it publishes nothing and ends abandoned", async () => {
    const f = await cliFixture(h);
    f.config("acme");
    f.put("acme", "d1.csv", csv("A1,a,5,1.00", "A2,b,3,1.00"), 120);

    // A: paused (SIGSTOP) right before it would publish d1.
    const a = spawn(
      process.execPath,
      ["--import", TSX_IMPORT, FAULT_CLI, "snapshots", "run", "acme"],
      {
        cwd: f.cwd,
        env: {
          ...process.env,
          ...f.env,
          TIDEMARK_FROM_SOURCE: "1",
          TIDEMARK_LOG_LEVEL: "warn",
          TIDEMARK_SNAPSHOTS_PAUSE_AT: "before-state",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let aOut = "";
    a.stdout.on("data", (d) => {
      aOut += d;
    });
    a.stderr.on("data", (d) => {
      aOut += d;
    });
    const aDone = new Promise<number | null>((resolve) => a.on("close", resolve));
    const deadline = Date.now() + 60_000;
    while (procState(a.pid!) !== "T") {
      if (Date.now() > deadline) throw new Error(`A never paused: ${aOut}`);
      await sleep(50);
    }

    // B: a newer file arrives; once A's lease (TTL 1 s) expires, B takes over and publishes it.
    f.put("acme", "d2.csv", csv("A1,a,9,1.00", "A3,c,1,1.00"), 60);
    await sleep(1500);
    const b = await f.run(["snapshots", "run", "acme", "--json"]);
    expect(b.code, b.stderr).toBe(0);
    const bRun = JSON.parse(b.stdout).result.run_id as string;
    expect(current(f)).toBe(bRun);

    // A wakes up: it must not replace B's newer state.
    a.kill("SIGCONT");
    const aCode = await aDone;
    expect(aCode, aOut).not.toBe(0);
    expect(current(f)).toBe(bRun);
    expect(passManifests(f)).toEqual([bRun]);
    expect(
      readFileSync(path.join(f.root, "state_store", "acme", bRun, "facts.ndjson"), "utf8"),
    ).toContain("A3");

    const db = await openDatabase(
      f.env.TIDEMARK_DATABASE_URL!.startsWith("sqlite:")
        ? { dialect: "sqlite", path: f.env.TIDEMARK_DATABASE_URL!.slice(7), busyTimeoutMs: 5000 }
        : { dialect: "postgres", url: f.env.TIDEMARK_DATABASE_URL! },
    );
    try {
      const runs = await new RunRepo(db).list({ limit: 10 });
      const aRun = runs.find((r) => r.runId !== bRun);
      expect(aRun?.status).toBe("abandoned");
      // A was alive all along: its own account replaces the sweep's "died or stalled" guess.
      expect(aRun?.error).toMatch(/^lease lost: .* is no longer held by .*; nothing was committed/);
      expect(runs.find((r) => r.runId === bRun)?.status).toBe("succeeded");
    } finally {
      await db.close();
    }
  });
});
