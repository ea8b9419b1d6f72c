import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type DialectHarness, describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli, spawnCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

const tmp = () => testTempDir("tm-proc-");

describe("tidemark binary", () => {
  it("--help documents the commands and exit codes", async () => {
    const r = await spawnCli(["--help"], { cwd: tmp() });
    expect(r.code).toBe(0);
    for (const word of [
      "init",
      "db",
      "job",
      "runs",
      "run-due",
      "queue",
      "hash",
      "demo",
      "Exit codes:",
      "3  already running",
    ]) {
      expect(r.stdout).toContain(word);
    }
  });

  it("init writes a starter config, refuses to overwrite it, and the result loads", async () => {
    const cwd = tmp();
    let r = await spawnCli(["init"], { cwd });
    expect(r.code).toBe(0);
    const text = readFileSync(path.join(cwd, "tidemark.yaml"), "utf8");
    expect(text).toContain("# Deployment environment");
    r = await spawnCli(["init"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tidemark.yaml already exists; not overwriting it/);
    expect(readFileSync(path.join(cwd, "tidemark.yaml"), "utf8")).toBe(text);
    r = await spawnCli(["db", "migrate"], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("engine/0001-engine-core");
    expect(existsSync(path.join(cwd, "data", "tidemark.db"))).toBe(true);
    r = await spawnCli(["db", "status"], { cwd });
    expect(r.stdout).toMatch(/engine\s+0001-engine-core\s+\d{4}-/);
    expect(r.stdout).toContain("Up to date.");
  });

  it("a bad config is one line naming path and value, exit 2, and creates no database", async () => {
    const cwd = tmp();
    writeFileSync(path.join(cwd, "tidemark.yaml"), "env: staging\n");
    const r = await spawnCli(["job", "ls"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/tidemark.yaml: env: .*\(got "staging"\)/);
    expect(existsSync(path.join(cwd, "data"))).toBe(false);
  });

  it("hash prints the content hash of a file or stdin; bad JSON exits 2 naming the place", async () => {
    const cwd = tmp();
    writeFileSync(path.join(cwd, "doc.json"), '{"b": 1.0, "a": ["東京", 1e16]}');
    const fromFile = await spawnCli(["hash", "doc.json"], { cwd });
    const fromStdin = await spawnCli(["hash", "-"], { cwd, stdin: '{"a":["東京",1e16],"b":1.0}' });
    // The digest of Python's canonical form of both documents.
    const expected = createHash("sha256").update('{"a":["東京",1e+16],"b":1.0}').digest("hex");
    expect(fromFile).toMatchObject({ code: 0, stdout: `${expected}\n` });
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    const bad = await spawnCli(["hash", "-"], { cwd, stdin: '{"a": tru}' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/stdin: .*(line|offset)/i);
    const missing = await spawnCli(["hash", "nope.json"], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.json: cannot read");
  });

  it("demo with no pipeline says so", async () => {
    const r = await runCli(["demo"], { cwd: tmp(), registry: testRegistry() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No pipeline with a demo is registered yet");
  });
});

const TEST_CLI = fileURLToPath(new URL("../fixtures/test-cli.ts", import.meta.url));

/** A job `doomed` running in a child process (sleeping a minute), ready to be killed. */
async function startDoomedRun(h: DialectHarness, ttlSeconds: number) {
  const { cwd, env } = await cliEnv(h);
  const o = {
    cwd,
    env: { ...env, TIDEMARK_LEASE_TTL_SECONDS: String(ttlSeconds) },
    registry: testRegistry(),
  };
  await runCli(
    ["job", "add", "doomed", "--type", "test.echo", "--params", '{"message":"m","sleep_ms":60000}'],
    o,
  );
  const child = spawn(process.execPath, ["--import", TSX_IMPORT, TEST_CLI, "run", "doomed"], {
    cwd,
    env: { ...process.env, ...o.env, TIDEMARK_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      if (d.toString().includes("run started")) resolve();
    });
    child.on("exit", () => reject(new Error("child exited before the run started")));
  });
  const running = JSON.parse((await runCli(["runs", "ls", "--json"], o)).stdout);
  expect(running).toMatchObject([{ jobName: "doomed", status: "running" }]);
  expect((await runCli(["run", "doomed"], o)).code).toBe(3);
  const kill = async () => {
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
  };
  return { o, pid: child.pid!, kill };
}

describeEachDialect("a run whose process dies", (h) => {
  it("is marked abandoned once its lease expires, and the job can run again", async () => {
    const { o, kill } = await startDoomedRun(h, 1);
    await kill();
    await new Promise((r) => setTimeout(r, 1200));

    const after = JSON.parse((await runCli(["runs", "ls", "--json"], o)).stdout);
    expect(after).toMatchObject([
      {
        jobName: "doomed",
        status: "abandoned",
        error: "lease lost: it expired without renewal (the process died or stalled)",
      },
    ]);
    await runCli(["job", "update", "doomed", "--params", '{"message":"again"}'], o);
    const again = await runCli(["run", "doomed"], o);
    expect(again.code).toBe(0);
  });

  it("on this machine, does not block the next run until its lease expires", async () => {
    const { o, pid, kill } = await startDoomedRun(h, 60);
    await kill();
    await runCli(["job", "update", "doomed", "--params", '{"message":"again"}'], o);
    const again = await runCli(["run", "doomed"], o);
    expect(again.code, again.stderr).toBe(0);
    const runs = JSON.parse((await runCli(["runs", "ls", "--json"], o)).stdout) as Array<{
      status: string;
      error: string | null;
    }>;
    expect(runs.map((r) => r.status).sort()).toEqual(["abandoned", "succeeded"]);
    expect(runs.find((r) => r.status === "abandoned")?.error).toBe(
      `process died: pid ${pid} on ${hostname()} is gone`,
    );
  });
});
