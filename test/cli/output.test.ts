import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CliSession } from "../../src/cli/session.ts";
import { defineJobType, definePipeline } from "../../src/engine/registry/pipeline-definition.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testPipeline } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

/** A job type that describes its own summary, as snapshots does. */
const countType = defineJobType({
  name: "words.count",
  description: "counts words",
  params: z.object({ text: z.string() }).strict(),
  example: { text: "a b" },
  summaryLines: (s) => [`counted ${String(s.words)} words in ${String(s.lines)} line(s)`],
  async run(_ctx, params) {
    return {
      summary: { words: params.text.split(/\s+/).length, lines: params.text.split("\n").length },
    };
  },
});

/** The test pipeline plus one whose job type has summaryLines. */
const registry = () =>
  new Registry([
    testPipeline,
    definePipeline({ name: "words", description: "words", jobTypes: [countType] }),
  ]);

const DIGEST = "New books:\n1. Tides\n2. Marks";

describeEachDialect("human output", (h) => {
  it("run prints the summary as aligned lines, a multi-line value as a text block", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    await runCli(
      ["job", "add", "d", "--type", "test.echo", "--params", JSON.stringify({ message: DIGEST })],
      o,
    );
    const r = await runCli(["run", "d"], o);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^d: succeeded \(run d_\d{8}T\d{6}Z_[0-9a-f]{6}\)$/);
    // Keys right-aligned on one column: every value starts at the same place.
    const at = lines.filter((l) => /^\s+\w+: /.test(l)).map((l) => l.indexOf(": "));
    expect(new Set(at).size).toBe(1);
    expect(r.stdout).toMatch(/\n\s+message: New books:\n\s+1\. Tides\n\s+2\. Marks\n/);
    expect(r.stdout).toMatch(/\n\s+dry_run: false\n/);
    expect(r.stdout).not.toContain("\\n");
    expect(r.stdout).not.toMatch(/[{}]/);
  });

  it("run prints a job type's own summary lines when it has them", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    await runCli(["job", "add", "w", "--type", "words.count", "--params", '{"text":"a b c"}'], o);
    const r = await runCli(["run", "w"], o);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^w: succeeded \(run w_\S+\)\n {2}counted 3 words in 1 line\(s\)\n$/);
    const json = JSON.parse((await runCli(["run", "w", "--json"], o)).stdout);
    expect(json.summary).toEqual({ words: 3, lines: 1 });
  });

  it("runs show renders multi-line text as an indented block, not \\n escapes", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    await runCli(
      ["job", "add", "d", "--type", "test.echo", "--params", JSON.stringify({ message: DIGEST })],
      o,
    );
    const { runId } = JSON.parse((await runCli(["run", "d", "--json"], o)).stdout);
    const r = await runCli(["runs", "show", runId], o);
    expect(r.stdout).not.toContain("\\n");
    expect(r.stdout).toContain('"message": "(3 lines, shown below)"');
    expect(r.stdout).toContain("summary.message:\n    New books:\n    1. Tides\n    2. Marks\n");
    const json = JSON.parse((await runCli(["runs", "show", runId, "--json"], o)).stdout);
    expect(json.summary.message).toBe(DIGEST);
  });

  it("runs ls cuts a long error to one line within 100 columns; --json keeps it whole", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    const message = `line one ${"x".repeat(300)}\nline two`;
    await runCli(
      [
        "job",
        "add",
        "bad",
        "--type",
        "test.echo",
        "--params",
        JSON.stringify({ message, fail: true }),
      ],
      o,
    );
    expect((await runCli(["run", "bad"], o)).code).toBe(1);
    const r = await runCli(["runs", "ls"], o);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/failed .* echo failed: line one.*…$/);
    expect(lines[1]!.length).toBeLessThanOrEqual(100);
    const [run] = JSON.parse((await runCli(["runs", "ls", "--json"], o)).stdout);
    expect(run.error).toBe(`echo failed: ${message}`);
  });

  it("job ls shows next fire, last run status and its age", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    const add = (name: string, ...more: string[]) =>
      runCli(
        ["job", "add", name, "--type", "test.echo", "--params", '{"message":"m"}', ...more],
        o,
      );
    await add("daily", "--schedule", "0 3 * * *");
    await add("manual");
    await add("off", "--schedule", "0 3 * * *", "--disabled");
    await runCli(["run", "manual"], o);
    const r = await runCli(["job", "ls"], o);
    expect(r.stdout).toMatch(/\n\nNAME\s+NEXT FIRE\s+LAST RUN\s+AGE\n/);
    expect(r.stdout).toMatch(
      /\ndaily\s+\d{4}-\d\d-\d\dT03:00:00Z \(in \d+[smh]\)\s+- \(never ran\)\s+-\n/,
    );
    expect(r.stdout).toMatch(/\nmanual\s+- \(no schedule\)\s+succeeded\s+\d+s ago\n/);
    expect(r.stdout).toMatch(/\noff\s+- \(disabled\)\s+- \(never ran\)\s+-\n/);
    const jobs = JSON.parse((await runCli(["job", "ls", "--json"], o)).stdout);
    expect(jobs.find((j: { name: string }) => j.name === "daily").nextOccurrenceAt).toMatch(
      /T03:00:00/,
    );
    expect(jobs.find((j: { name: string }) => j.name === "manual")).toMatchObject({
      nextOccurrenceAt: null,
      lastRun: { status: "succeeded", error: null },
    });
  });
});

describeEachDialect("logs and the human summary", (h) => {
  // runCli sets TIDEMARK_LOG_LEVEL=warn; "" unsets it, as for a user who set nothing.
  const unset = { TIDEMARK_LOG_LEVEL: "" };

  it("a one-shot command logs no info line repeating its summary, and nothing on stdout", async () => {
    const base = await cliEnv(h);
    const o = { cwd: base.cwd, env: { ...base.env, ...unset }, registry: registry() };
    await runCli(["job", "add", "e", "--type", "test.echo", "--params", '{"message":"m"}'], o);
    const r = await runCli(["run", "e"], o);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^e: succeeded/);
    expect(r.stdout).not.toContain('"level"');
  });

  it("a failed run is told once, by its summary: no error log line repeats it", async () => {
    const base = await cliEnv(h);
    const o = { cwd: base.cwd, env: { ...base.env, ...unset }, registry: registry() };
    const params = '{"message":"m","fail":true}';
    await runCli(["job", "add", "f", "--type", "test.echo", "--params", params], o);
    const r = await runCli(["run", "f"], o);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("echo failed: m");
    expect(r.stderr).not.toContain("echo failed: m");
  });

  it("--log-level, TIDEMARK_LOG_LEVEL or log.level bring info lines back, on stderr only", async () => {
    const base = await cliEnv(h);
    const o = { cwd: base.cwd, env: { ...base.env, ...unset }, registry: registry() };
    await runCli(["job", "add", "e", "--type", "test.echo", "--params", '{"message":"m"}'], o);
    writeFileSync(path.join(o.cwd, "quiet.yaml"), "log:\n  level: info\n");
    for (const [argv, env] of [
      [["--log-level", "info", "run", "e"], {}],
      [["run", "e"], { TIDEMARK_LOG_LEVEL: "info" }],
      [["--config", "quiet.yaml", "run", "e"], {}],
    ] as const) {
      const r = await runCli([...argv], { ...o, env: { ...o.env, ...env } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr, argv.join(" ")).toContain('"msg":"run finished"');
      expect(r.stdout).not.toContain('"msg"');
    }
  });
});

describe("log level by command", () => {
  const session = (command: string, env: NodeJS.ProcessEnv = {}) => {
    const cwd = testTempDir("tm-out-");
    const io = {
      out() {},
      err() {},
      cwd,
      env,
      readStdin: async () => Buffer.from(""),
      isTTY: true,
    };
    const s = new CliSession(io, new Registry([testPipeline]), () => ({}));
    s.command = command;
    return s;
  };

  it("serve and worker keep the configured level; one-shot commands default to warn", async () => {
    expect(await session("serve").logLevel()).toBe("info");
    expect(await session("worker").logLevel()).toBe("info");
    expect(await session("run").logLevel()).toBe("warn");
    expect(await session("run", { TIDEMARK_LOG_LEVEL: "debug" }).logLevel()).toBe("debug");
  });
});
