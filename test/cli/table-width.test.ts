import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

/** Runs the CLI as if on a terminal `columns` wide; returns stdout. */
async function onTerminal(argv: string[], columns: number): Promise<string> {
  let stdout = "";
  const code = await main(
    argv,
    {
      out: (t) => {
        stdout += t;
      },
      err: () => {},
      cwd: testTempDir("tm-width-"),
      env: { TIDEMARK_LOG_LEVEL: "warn" },
      readStdin: async () => Buffer.from(""),
      logDestination: new Writable({ write: (_c, _e, cb) => cb() }),
      isTTY: true,
      columns,
    },
    new Registry(pipelines),
  );
  expect(code, argv.join(" ")).toBe(0);
  return stdout;
}

/** Lines wider than `columns`, but for the ready-to-copy `tidemark job add` commands. */
function tooWide(text: string, columns: number): string[] {
  return text
    .split("\n")
    .filter((l) => l.length > columns && !/^(npx )?tidemark job add /.test(l.trimStart()));
}

describe("tables on an 80-column terminal", () => {
  it("job types wraps its descriptions beside the other columns", async () => {
    const out = await onTerminal(["job", "types"], 80);
    expect(tooWide(out, 80)).toEqual([]);
    expect(out).toMatch(/^TYPE +PIPELINE +DESCRIPTION\nbooks\.run +books +Google Books/);
  });

  it("job describe fits every job type's params", async () => {
    const types = pipelines.flatMap((p) => p.jobTypes.map((t) => t.name));
    for (const type of types) {
      const out = await onTerminal(["job", "describe", type], 80);
      expect(tooWide(out, 80), type).toEqual([]);
    }
    const books = await onTerminal(["job", "describe", "books.run"], 80);
    expect(books).toContain(
      "  queries\n      type: list (1–20 items) of string (≤ 500 chars); required: yes\n",
    );
  });

  it("a wide terminal keeps one row per param", async () => {
    const out = await onTerminal(["job", "describe", "books.run"], 250);
    expect(out).toMatch(/\n {2}select\.count +integer \(1–50\) +5 +books per digest\n/);
  });
});
