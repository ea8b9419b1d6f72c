import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

describeEachDialect("tidemark run / run-due / runs", (h) => {
  const registry = testRegistry();

  it("runs a job, records it, and shows it in runs ls/show", async () => {
    const o = { ...(await cliEnv(h)), registry };
    const cli = (...argv: string[]) => runCli(argv, o);
    await cli("job", "add", "hello", "--type", "test.echo", "--params", '{"message":"hi"}');
    let r = await cli("run", "hello", "--limit", "3", "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      jobName: "hello",
      status: "succeeded",
      summary: { message: "hi", limit: 3 },
    });
    expect(report.runId).toMatch(/^hello_\d{8}T\d{6}Z_[0-9a-f]{6}$/);
    r = await cli("runs", "ls", "--job", "hello");
    expect(r.stdout).toMatch(new RegExp(`${report.runId}\\s+hello\\s+succeeded`));
    r = await cli("runs", "show", report.runId);
    expect(r.stdout).toContain("status:    succeeded");
    expect(r.stdout).toContain('"message": "hi"');
  });

  it("the job sees the environment of the CLI that ran it", async () => {
    const o = { ...(await cliEnv(h)), registry };
    await runCli(["job", "add", "env", "--type", "test.echo", "--params", '{"message":"m"}'], o);
    const r = await runCli(["run", "env", "--json"], {
      ...o,
      env: { ...o.env, TM_TEST_GREETING: "konnichiwa" },
    });
    expect(JSON.parse(r.stdout).summary.greeting).toBe("konnichiwa");
  });

  it("a failing job exits 1 and is recorded as failed", async () => {
    const o = { ...(await cliEnv(h)), registry };
    await runCli(
      ["job", "add", "bad", "--type", "test.echo", "--params", '{"message":"m","fail":true}'],
      o,
    );
    const r = await runCli(["run", "bad"], o);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("bad: failed");
    expect(r.stdout).toContain("error: echo failed: m");
    const runs = JSON.parse(
      (await runCli(["runs", "ls", "--json", "--status", "failed"], o)).stdout,
    );
    expect(runs).toHaveLength(1);
  });

  it("a second concurrent run of the same job exits 3 with 'already running'", async () => {
    const o = { ...(await cliEnv(h)), registry };
    await runCli(
      ["job", "add", "slow", "--type", "test.echo", "--params", '{"message":"m","sleep_ms":1500}'],
      o,
    );
    const first = runCli(["run", "slow"], o);
    await new Promise((r) => setTimeout(r, 600));
    const second = await runCli(["run", "slow"], o);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(/job slow is already running/);
    expect((await first).code).toBe(0);
  });

  it("run-due runs what is due and prints it; nothing due says so", async () => {
    const o = { ...(await cliEnv(h)), registry };
    let r = await runCli(["run-due"], o);
    expect(r).toMatchObject({ code: 0, stdout: "Nothing due.\n" });
    // Created "now", so the first occurrence of a per-minute cron is within a minute: use
    // run-due's JSON on a job created with a schedule that fired every second (croner 6 fields).
    await runCli(
      [
        "job",
        "add",
        "tick",
        "--type",
        "test.echo",
        "--params",
        '{"message":"m"}',
        "--schedule",
        "* * * * * *",
      ],
      o,
    );
    await new Promise((res) => setTimeout(res, 1100));
    r = await runCli(["run-due", "--dry-run"], o);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^tick: succeeded \(run tick_/);
    expect(r.stdout).toContain("dry_run: true");
  });
});
