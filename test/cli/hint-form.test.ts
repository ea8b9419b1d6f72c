// Every printed hint says the command the way it works where the user is.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { inUserForm, invocationName } from "../../src/cli/output/invocation.ts";
import { bareHints, printedCommands } from "../../src/testing/demo-hints.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

describe("the command name in hints", () => {
  it("is `npx tidemark` in a clone or a project, `tidemark` from a global install", () => {
    expect(invocationName({}, "/work/app", "/work/app/bin/tidemark.js")).toBe("npx tidemark");
    expect(
      invocationName({}, "/work/app/sub", "/work/app/node_modules/tidemark/bin/tidemark.js"),
    ).toBe("npx tidemark");
    expect(invocationName({}, "/home/me", "/usr/lib/node_modules/tidemark/bin/tidemark.js")).toBe(
      "tidemark",
    );
    expect(
      invocationName(
        { npm_command: "exec" },
        "/home/me",
        "/usr/lib/node_modules/tidemark/bin/tidemark.js",
      ),
    ).toBe("npx tidemark");
  });

  it("rewrites bare hints only: never twice, never a path or a longer word", () => {
    const n = "npx tidemark";
    expect(inUserForm("Next: tidemark db migrate, then tidemark job ls", n)).toBe(
      "Next: npx tidemark db migrate, then npx tidemark job ls",
    );
    expect(inUserForm("run `tidemark worker --drain`", n)).toBe(
      "run `npx tidemark worker --drain`",
    );
    expect(inUserForm("npx tidemark -c tidemark-demo/tidemark.yaml runs ls", n)).toBe(
      "npx tidemark -c tidemark-demo/tidemark.yaml runs ls",
    );
    const json = JSON.stringify({ message: "collect again with: tidemark job cursor reset j" });
    expect(inUserForm(json, n)).toBe(json);
    expect(inUserForm("Demo data directory: /home/me/tidemark-demo", n)).toBe(
      "Demo data directory: /home/me/tidemark-demo",
    );
  });
});

/** The CLI in-process as a global install runs it. */
async function runGlobal(argv: string[], cwd: string): Promise<string> {
  let stdout = "";
  await main(argv, {
    out: (t) => {
      stdout += t;
    },
    err: () => {},
    cwd,
    env: { TIDEMARK_LOG_LEVEL: "warn", TIDEMARK_DATA_DIR: `${cwd}/data` },
    readStdin: async () => Buffer.alloc(0),
    logDestination: new Writable({ write: (_c, _e, cb) => cb() }),
    isTTY: false,
    binPath: "/usr/lib/node_modules/tidemark/bin/tidemark.js",
  });
  return stdout;
}

describe("hints printed by the commands", () => {
  it("say npx tidemark in a clone, and the ones that run as printed work", async () => {
    const cwd = testTempDir("tm-hints-");
    const env = { TIDEMARK_DATA_DIR: `${cwd}/data` };
    const printed: Record<string, string> = {};
    for (const argv of [
      ["init"],
      ["db", "status"],
      ["job", "ls"],
      ["job", "types"],
      ["job", "describe", "books.run"],
      ["snapshots", "supplier", "add", "acme"],
      ["mercari", "crawl"],
      ["mercari", "product", "ls"],
    ]) {
      const r = await runCli(argv, { cwd, env });
      expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: "" });
      expect({ argv, bare: bareHints(r.stdout) }).toEqual({ argv, bare: [] });
      printed[argv.join(" ")] = r.stdout;
    }
    const all = Object.values(printed).join("\n");
    const commands = printedCommands(all);
    expect(commands).toEqual(
      expect.arrayContaining([
        "db migrate",
        "snapshots run acme",
        "snapshots status acme",
        "job describe <type>",
      ]),
    );
    // Those without a placeholder (<name>, N, K) run as printed.
    const runnable = [...new Set(commands)].filter(
      (c) => !/<|\bN\b|\bK\b/.test(c) && !c.startsWith("job add") && !c.includes("--params-file"),
    );
    expect(runnable).toEqual(expect.arrayContaining(["db migrate", "snapshots run acme"]));
    for (const c of runnable) {
      const r = await runCli(c.split(/\s+/), { cwd, env });
      expect({ c, code: r.code, stderr: r.stderr }).toEqual({ c, code: 0, stderr: "" });
    }
  });

  it("say bare tidemark from a global install", async () => {
    const cwd = testTempDir("tm-hints-");
    const out = await runGlobal(["init"], cwd);
    expect(out).toContain("Next: tidemark db migrate");
    expect(out).not.toContain("npx");
  });
});
