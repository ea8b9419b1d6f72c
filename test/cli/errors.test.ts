import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { runCli, spawnCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

/** A stack frame line, as V8 prints them. */
const STACK_FRAME = /^\s+at /m;

/** Runs the CLI in-process with a stdout that fails with a plain Error: an unexpected error. */
async function unexpectedError(argv: string[]) {
  let stderr = "";
  const code = await main(argv, {
    out: () => {
      throw new Error("stdout exploded\n  on a second line");
    },
    err: (t) => {
      stderr += t;
    },
    cwd: testTempDir("tm-err-"),
    env: { TIDEMARK_LOG_LEVEL: "warn" },
    readStdin: async () => Buffer.from(""),
    isTTY: false,
  });
  return { code, stderr };
}

describe("an unreachable database", () => {
  it("postgres: one line naming the database without its password, exit 2", async () => {
    const r = await runCli(["job", "ls"], {
      cwd: testTempDir("tm-err-"),
      env: { TIDEMARK_DATABASE_URL: "postgres://tm:hunter2@127.0.0.1:1/tidemark" },
      registry: testRegistry(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "tidemark: database postgres://tm:***@127.0.0.1:1/tidemark: cannot connect: connection refused (connect ECONNREFUSED 127.0.0.1:1): is the server running?\n",
    );
    expect(r.stdout).toBe("");
  });

  it("postgres: an unknown host and a password in the query are named and hidden", async () => {
    const r = await runCli(["runs", "ls"], {
      cwd: testTempDir("tm-err-"),
      env: { TIDEMARK_DATABASE_URL: "postgres://tm@db.invalid:5432/x?password=hunter2" },
      registry: testRegistry(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^tidemark: database postgres:\/\/tm@db\.invalid:5432\/x\?password=\*\*\*: cannot connect: unknown host/,
    );
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("sqlite: a folder that cannot be created is one line naming the file, exit 2", async () => {
    const cwd = testTempDir("tm-err-");
    writeFileSync(path.join(cwd, "blocker"), "a file where a folder should be");
    const r = await runCli(["job", "ls"], {
      cwd,
      env: { TIDEMARK_DATABASE_URL: "sqlite:blocker/db/tidemark.db" },
      registry: testRegistry(),
    });
    expect(r.code).toBe(2);
    const file = path.join(cwd, "blocker", "db", "tidemark.db");
    expect(r.stderr).toBe(
      `tidemark: database ${file}: cannot create its folder ${path.dirname(file)}: part of the path is a file, not a folder\n`,
    );
  });

  it("the real binary prints no stack trace, even with --verbose (a configuration error)", async () => {
    const env = { TIDEMARK_DATABASE_URL: "postgres://tm:hunter2@127.0.0.1:1/tidemark" };
    for (const argv of [
      ["job", "ls"],
      ["--verbose", "job", "ls"],
    ]) {
      const r = await spawnCli(argv, { cwd: testTempDir("tm-err-"), env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^tidemark: database postgres:\/\/tm:\*\*\*@127\.0\.0\.1:1\/tidemark: /,
      );
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
  });
});

describe("error lines", () => {
  it("a bad config is one line without a stack trace, even with --verbose", async () => {
    const cwd = testTempDir("tm-err-");
    writeFileSync(path.join(cwd, "tidemark.yaml"), "env: staging\n");
    const r = await runCli(["--verbose", "job", "ls"], { cwd, registry: testRegistry() });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/tidemark.yaml: env: /);
  });

  it("a usage error shows its stack only with --verbose", async () => {
    const cwd = testTempDir("tm-err-");
    let r = await runCli(["job", "describe", "nope.x"], { cwd, registry: testRegistry() });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_FRAME);
    r = await runCli(["--verbose", "job", "describe", "nope.x"], { cwd, registry: testRegistry() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tidemark: unknown job type "nope.x"; known types: test.echo\n/);
    expect(r.stderr).toMatch(STACK_FRAME);
  });

  it("an unexpected error is one line plus a hint; --verbose adds the stack", async () => {
    let r = await unexpectedError(["job", "types"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "tidemark: unexpected error: stdout exploded on a second line\nrun with --verbose for the stack trace\n",
    );
    r = await unexpectedError(["--verbose", "job", "types"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^tidemark: unexpected error: stdout exploded on a second line\nError: stdout exploded/,
    );
    expect(r.stderr).toMatch(STACK_FRAME);
    expect(r.stderr).not.toContain("run with --verbose");
  });
});

describe("a heap growth setting that is not a number", () => {
  it("is one line naming the variable, exit 2, before any command runs", async () => {
    const cwd = testTempDir("tm-err-");
    const r = await runCli(["init"], {
      cwd,
      env: { TIDEMARK_HEAP_GROWING_PERCENT: "lots" },
      registry: testRegistry(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'tidemark: TIDEMARK_HEAP_GROWING_PERCENT: expected a whole number from 0 to 1000, got "lots"\n',
    );
    expect(existsSync(path.join(cwd, "tidemark.yaml"))).toBe(false);
  });
});
