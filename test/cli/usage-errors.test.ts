import { describe, expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

/** Runs the CLI with the test pipeline's registry in a fresh folder. */
function cli(...argv: string[]) {
  return runCli(argv, { cwd: testTempDir("tm-usage-"), registry: testRegistry() });
}

describe("usage errors", () => {
  it("are one line like every other error, pointing at the command's --help, exit 2", async () => {
    const cases: Array<[string[], string]> = [
      [
        ["jobs"],
        "tidemark: unknown command 'jobs' (Did you mean job?) (see npx tidemark --help)\n",
      ],
      [
        ["job", "ls", "--bogus"],
        "tidemark: unknown option '--bogus' (see npx tidemark job ls --help)\n",
      ],
      [
        ["runs", "ls", "--limit", "0"],
        `tidemark: option '--limit <n>' argument '0' is invalid. expected a positive integer, got "0" (see npx tidemark runs ls --help)\n`,
      ],
      [
        ["runs", "ls", "--limit", "99999999999999999999"],
        `tidemark: option '--limit <n>' argument '99999999999999999999' is invalid. expected a positive integer up to 2147483647, got "99999999999999999999" (see npx tidemark runs ls --help)\n`,
      ],
      [
        ["job", "add", "x", "--type", "test.echo", "--params", "null"],
        "tidemark: option '--params <json>' argument 'null' is invalid. expected a JSON value other than null (see npx tidemark job add --help)\n",
      ],
      [
        ["job", "add", "x"],
        "tidemark: required option '--type <type>' not specified (see npx tidemark job add --help)\n",
      ],
    ];
    for (const [argv, stderr] of cases) {
      const r = await cli(...argv);
      expect(r, argv.join(" ")).toEqual({ code: 2, stdout: "", stderr });
    }
  });

  it("a command group without its subcommand shows its help on stderr, exit 2", async () => {
    const r = await cli("job");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: tidemark job \[options\] \[command\]/);
  });

  it("--help, help <command> and --version still exit 0 on stdout", async () => {
    for (const argv of [["--help"], ["job", "--help"], ["help", "job"], ["--version"]]) {
      const r = await cli(...argv);
      expect(r.code, argv.join(" ")).toBe(0);
      expect(r.stdout, argv.join(" ")).not.toBe("");
    }
  });
});
