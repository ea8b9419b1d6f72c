// Docs and help speak to users: no specification section numbers or internal names, no links to
// files that are not in the repository, and the package says what exists now.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pipelines } from "../src/pipelines/index.ts";
import { runCli } from "../src/testing/run-cli.ts";
import { testTempDir } from "../src/testing/temp-dir.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const INTERNAL = /§|\bseed\s*0\d\d\b|\bseed §|ETL CANON|the issue's/i;

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? markdownUnder(full) : name.endsWith(".md") ? [full] : [];
  });
}

const DOCS = [path.join(ROOT, "README.md"), ...markdownUnder(path.join(ROOT, "docs"))];

describe("docs speak to users", () => {
  for (const file of DOCS) {
    const rel = path.relative(ROOT, file);
    it(`${rel}: no section numbers or internal names`, () => {
      const hits = readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line: i + 1, text: line }))
        .filter((l) => INTERNAL.test(l.text));
      expect(hits).toEqual([]);
    });

    it(`${rel}: every relative link points at a file in the repository`, () => {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)) {
        const target = path.resolve(path.dirname(file), m[1]!);
        expect(existsSync(target), `${rel} → ${m[1]}`).toBe(true);
        expect(target.startsWith(ROOT), `${rel} → ${m[1]} leaves the repository`).toBe(true);
      }
    });
  }

  it("package.json describes the pipelines this build has", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      description: string;
    };
    expect(pkg.description).not.toMatch(/\b(five|three|four)\b/i);
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    for (const p of pipelines) expect(readme).toContain(`\`${p.name}\``);
  });

  it("--help of every command group speaks to users", async () => {
    const cwd = testTempDir("tm-docs-");
    const groups = [
      "",
      "job",
      "runs",
      "queue",
      "db",
      ...pipelines.flatMap((p) => (p.commandGroups ?? []).map((g) => g.path.join(" "))),
    ];
    for (const group of groups) {
      const argv = [...(group ? group.split(" ") : []), "--help"];
      const res = await runCli(argv, { cwd });
      expect(res.code, argv.join(" ")).toBe(0);
      expect(res.stdout, argv.join(" ")).not.toMatch(INTERNAL);
    }
    const types = await runCli(["job", "types"], { cwd });
    expect(types.stdout).not.toMatch(INTERNAL);
  });
});
