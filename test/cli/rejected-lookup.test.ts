import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

describe("a command naming something that does not exist writes nothing", () => {
  it("exits 2 naming it, and creates no data/ or database in a fresh folder", async () => {
    const cwd = testTempDir("tm-rejected-");
    const cases: [string[], RegExp][] = [
      [["run", "nightly"], /^tidemark: unknown job "nightly"$/],
      [["run", "nightly", "--queue"], /^tidemark: unknown job "nightly"$/],
      [["runs", "show", "nightly_20260101T000000Z_abcdef"], /^tidemark: unknown run "nightly_/],
      [["job", "show", "nightly"], /^tidemark: unknown job "nightly"$/],
      [["job", "rm", "nightly", "--yes"], /^tidemark: unknown job "nightly"$/],
      [["job", "disable", "nightly"], /^tidemark: unknown job "nightly"$/],
    ];
    for (const [argv, message] of cases) {
      const res = await runCli(argv, { cwd });
      expect({ argv, code: res.code, stderr: res.stderr.trim() }).toMatchObject({ argv, code: 2 });
      expect(res.stderr.trim()).toMatch(message);
      expect({ argv, data: existsSync(path.join(cwd, "data")) }).toEqual({ argv, data: false });
    }
  });
});
