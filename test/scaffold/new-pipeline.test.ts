// `tidemark new pipeline`: what it writes, and what it refuses before writing anything.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

/** Every file below `dir`, relative, sorted. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe("tidemark new pipeline", () => {
  it("writes a package in the one pipeline shape, named throughout, and prints steps that run", async () => {
    const cwd = testTempDir("tm-new-");
    const res = await runCli(["new", "pipeline", "acme-issues"], { cwd });
    expect(res.code, res.stderr).toBe(0);
    const dir = path.join(cwd, "acme-issues");
    const files = filesBelow(dir);
    for (const f of [
      "index.ts",
      "params.ts",
      "settings.ts",
      "tables.ts",
      "migrations/0001-acme-issues.ts",
      "jobs/sync.ts",
      "client/acme-issues-client.ts",
      "fake/acme-issues-fake.ts",
      "demo.ts",
      "panel/acme-issues-panel.ts",
      "test/conformance.test.ts",
      "package.json",
      ".gitignore",
      "README.md",
      "tidemark.yaml",
    ]) {
      expect(files).toContain(f);
    }
    for (const f of files) {
      const text = readFileSync(path.join(dir, f), "utf8");
      expect(text, f).not.toMatch(/starter[-_ ]?kit|__TIDEMARK_(SPEC|VERSION)__/i);
    }
    const index = readFileSync(path.join(dir, "index.ts"), "utf8");
    expect(index).toContain('name: "acme-issues.sync"');
    expect(index).toContain("export const acmeIssuesPipeline");
    expect(readFileSync(path.join(dir, "settings.ts"), "utf8")).toContain(
      "TIDEMARK_ACME_ISSUES_URL",
    );
    expect(readFileSync(path.join(dir, "tidemark.yaml"), "utf8")).toMatch(
      /plugins:\n\s+- \.\/index\.ts/,
    );
    const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    // No project above names Tidemark: this version's range, and how to give a tarball instead.
    expect(pkg.devDependencies.tidemark).toMatch(/^\^\d+\.\d+\.\d+/);
    expect(res.stdout).toContain("--tidemark <path to tidemark-x.y.z.tgz>");
    expect(pkg.devDependencies.vitest).toBeDefined();
    expect(pkg.peerDependencies.tidemark).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(pkg.scripts.test).toBe("vitest run");
    expect(res.stdout).toContain("cd acme-issues");
    expect(res.stdout).toContain("npx tidemark -c tidemark.yaml job types");
  });

  it("writes into --dir, depending on the tarball given, its path rebased to the new folder", async () => {
    const cwd = testTempDir("tm-new-");
    const res = await runCli(
      ["new", "pipeline", "acme", "--dir", "work/p", "--tidemark", "./tidemark-0.1.0.tgz"],
      { cwd },
    );
    expect(res.code, res.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(cwd, "work/p/package.json"), "utf8"));
    expect(pkg.devDependencies.tidemark).toBe("file:../../tidemark-0.1.0.tgz");
    expect(res.stdout).toContain("cd work/p");
  });

  it("depends on tidemark as the enclosing project installed it", async () => {
    const cwd = testTempDir("tm-new-");
    writeFileSync(
      path.join(cwd, "package.json"),
      JSON.stringify({ dependencies: { tidemark: "file:tidemark-0.1.0.tgz" } }),
    );
    expect((await runCli(["new", "pipeline", "acme"], { cwd })).code).toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(cwd, "acme/package.json"), "utf8"));
    expect(pkg.devDependencies.tidemark).toBe("file:../tidemark-0.1.0.tgz");
  });

  for (const [why, argv] of [
    ["an upper-case name", ["new", "pipeline", "Acme"]],
    ["a name with a path in it", ["new", "pipeline", "../acme"]],
    ["a built-in pipeline's name", ["new", "pipeline", "books"]],
    ["a command's name", ["new", "pipeline", "job"]],
  ] as const) {
    it(`refuses ${why} with one line and exit 2, writing nothing`, async () => {
      const cwd = testTempDir("tm-new-");
      const res = await runCli([...argv], { cwd });
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
      expect(res.stderr).toContain("pipeline name");
      expect(readdirSync(cwd)).toEqual([]);
    });
  }

  it("refuses a folder that is not empty, leaving it as it was", async () => {
    const cwd = testTempDir("tm-new-");
    mkdirSync(path.join(cwd, "acme"));
    writeFileSync(path.join(cwd, "acme", "notes.txt"), "mine");
    const res = await runCli(["new", "pipeline", "acme"], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toContain("not empty");
    expect(readdirSync(path.join(cwd, "acme"))).toEqual(["notes.txt"]);
    expect(existsSync(path.join(cwd, "acme", "index.ts"))).toBe(false);
  });
});
