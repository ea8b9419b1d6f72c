// The snapshots demo as a new user meets it: its closing hints work when copied as printed.
import path from "node:path";
import { expect, it } from "vitest";
import { hintArgv, runnableHints } from "../../src/testing/demo-hints.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

it("tidemark demo --only snapshots: every hint it prints runs as printed", async () => {
  const cwd = testTempDir("tm-snapnewcomer-");
  const res = await runCli(["demo", "--only", "snapshots"], { cwd });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toContain(`Demo data directory: ${path.join(cwd, "tidemark-demo")}`);
  // No hint without the demo's config (that one would look at the user's own data).
  const bare = res.stdout
    .split("\n")
    .filter((l) => /\btidemark (snapshots|runs|job) /.test(l) && !l.startsWith("-- "));
  expect(bare.filter((l) => !l.includes("npx tidemark -c"))).toEqual([]);
  const hints = runnableHints(res.stdout);
  expect(hints.length).toBeGreaterThan(4);
  const outputs = new Map<string, string>();
  for (const hint of hints) {
    const out = await runCli(hintArgv(hint), { cwd });
    expect({ hint, code: out.code, stderr: out.stderr }).toEqual({ hint, code: 0, stderr: "" });
    outputs.set(hintArgv(hint).slice(2, 4).join(" "), out.stdout);
  }
  const facts = outputs.get("snapshots read")!.trim().split("\n");
  expect(facts).toHaveLength(36);
  expect(JSON.parse(facts[0]!)).toMatchObject({ supplier: "acme" });
  // The run the demo names is one `runs show` knows, of a job `job show` knows.
  expect(outputs.get("runs show")).toMatch(/job:\s+snapshots\.acme \(snapshots\.ingest\)/);
  expect(outputs.get("job show")).toContain("snapshots.acme");
  expect(outputs.get("runs ls")).toMatch(/acme_\d{8}T\d{6}Z_[0-9a-f]{6}\s+snapshots\.acme/);
});
