import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

describeEachDialect("tidemark job", (h) => {
  const registry = testRegistry();

  it("add, ls, show, update, disable, enable, rm", async () => {
    const o = { ...(await cliEnv(h)), registry };
    const cli = (...argv: string[]) => runCli(argv, o);
    let r = await cli(
      "job",
      "add",
      "greet",
      "--type",
      "test.echo",
      "--params",
      '{"message":"hi"}',
      "--schedule",
      "*/5 * * * *",
      "--timezone",
      "Asia/Tokyo",
    );
    expect(r).toMatchObject({ code: 0, stdout: "Added job greet (test.echo)\n" });
    r = await cli("job", "ls");
    expect(r.stdout).toMatch(
      /NAME\s+TYPE\s+SCHEDULE\s+TZ\s+ENABLED\ngreet\s+test.echo\s+\*\/5 \* \* \* \*\s+Asia\/Tokyo\s+yes/,
    );
    r = await cli("job", "show", "greet", "--json");
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "greet",
      params: { message: "hi" },
      enabled: true,
    });
    r = await cli("job", "update", "greet", "--params", '{"message":"yo"}', "--no-schedule");
    expect(r.code).toBe(0);
    r = await cli("job", "disable", "greet");
    expect(r.stdout).toBe("Disabled job greet\n");
    r = await cli("job", "show", "greet");
    expect(r.stdout).toContain("enabled:   no");
    expect(r.stdout).toContain("schedule:  (none");
    expect(r.stdout).toContain("message: yo");
    await cli("job", "enable", "greet");
    r = await cli("job", "rm", "greet");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refusing to delete job greet without --yes");
    r = await cli("job", "rm", "greet", "--yes");
    expect(r).toMatchObject({ code: 0, stdout: "Deleted job greet\n" });
    r = await cli("job", "ls");
    expect(r.stdout).toContain("No jobs.");
  });

  it("params from a YAML file; import and export round-trip", async () => {
    const o = { ...(await cliEnv(h)), registry };
    const cli = (...argv: string[]) => runCli(argv, o);
    writeFileSync(path.join(o.cwd, "p.yaml"), "message: from file\nsleep_ms: 0\n");
    expect(
      (await cli("job", "add", "f", "--type", "test.echo", "--params-file", "p.yaml")).code,
    ).toBe(0);
    writeFileSync(
      path.join(o.cwd, "jobs.yaml"),
      "jobs:\n  - name: a\n    type: test.echo\n    params: { message: A }\n    schedule: '0 7 * * *'\n  - name: b\n    type: test.echo\n    params: { message: B }\n    enabled: false\n",
    );
    let r = await cli("job", "import", "jobs.yaml");
    expect(r.stdout).toBe("added a\nadded b\nImported 2 job(s) from jobs.yaml\n");
    r = await cli("job", "export");
    expect(r.stdout).toContain("name: f");
    expect(r.stdout).toContain("message: from file");
    writeFileSync(path.join(o.cwd, "exported.yaml"), r.stdout);
    r = await cli("job", "import", "exported.yaml");
    expect(r.stdout).toContain("updated a\nupdated b\nupdated f\n");
  });

  it.each([
    [
      ["job", "add", "x", "--type", "nope.run"],
      'unknown job type "nope.run"; known types: test.echo',
    ],
    [
      ["job", "add", "x", "--type", "test.echo", "--params", '{"message":1}'],
      "job x params: message:",
    ],
    [["job", "add", "x", "--type", "test.echo", "--params", "{bad"], "not valid JSON"],
    [
      [
        "job",
        "add",
        "x",
        "--type",
        "test.echo",
        "--params",
        '{"message":"m"}',
        "--schedule",
        "every day",
      ],
      'schedule "every day"',
    ],
    [
      [
        "job",
        "add",
        "x",
        "--type",
        "test.echo",
        "--params",
        '{"message":"m"}',
        "--timezone",
        "Nowhere/City",
      ],
      'timezone "Nowhere/City"',
    ],
    [["job", "show", "ghost"], 'unknown job "ghost"'],
    [["job", "update", "ghost", "--params", "{}"], 'unknown job "ghost"'],
    [["job", "update", "ghost"], "job update ghost: nothing to change; give --type"],
    [["run", "ghost"], 'unknown job "ghost"'],
    [["job", "import", "missing.yaml"], "missing.yaml: cannot read"],
    [["runs", "show", "nope_20260101T000000Z_000000"], "unknown run"],
    [["runs", "ls", "--limit", "0"], "expected a positive integer"],
    [["job", "frobnicate"], "unknown command"],
  ])("%j exits 2 with a one-line error and writes nothing", async (argv, message) => {
    const o = { ...(await cliEnv(h)), registry };
    const r = await runCli(argv, o);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
    const ls = await runCli(["job", "ls", "--json"], o);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    const runs = await runCli(["runs", "ls", "--json"], o);
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });
});

describeEachDialect("one-line errors", (h) => {
  it("several invalid params are reported on one line", async () => {
    const o = { ...(await cliEnv(h)), registry: testRegistry() };
    const r = await runCli(
      ["job", "add", "x", "--type", "test.echo", "--params", '{"message":1,"sleep_ms":-5}'],
      o,
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/message: .*\(got 1\); job x params: sleep_ms: .*\(got -5\)/);
  });
});
