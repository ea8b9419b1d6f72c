// What the linter cannot say about the layers: pipelines never import each other, every
// pipeline has the same top-level shape, folders (not only files) import one way, and the
// pipeline contract has no import loop, type-only imports included.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pipelines } from "../src/pipelines/index.ts";
import { testTempDir } from "../src/testing/temp-dir.ts";

const ROOT = fileURLToPath(new URL("../src/pipelines/", import.meta.url));
const IMPORT =
  /(?:import|export)\s[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : full.endsWith(".ts") ? [full] : [];
  });
}

describe("pipeline folders", () => {
  for (const p of pipelines) {
    it(`${p.name} imports no other pipeline`, () => {
      const own = path.join(ROOT, p.name);
      for (const file of filesUnder(own)) {
        for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
          const spec = m[1] ?? m[2]!;
          if (!spec.startsWith(".")) continue;
          const target = path.resolve(path.dirname(file), spec);
          if (target.startsWith(ROOT) && !target.startsWith(own + path.sep)) {
            expect.fail(`${path.relative(ROOT, file)} imports ${spec}`);
          }
        }
      }
    });

    it(`${p.name} has the shared top-level shape`, () => {
      const own = path.join(ROOT, p.name);
      for (const required of [
        "index.ts",
        "params.ts",
        "settings.ts",
        "tables.ts",
        "migrations",
        "jobs",
        "repos",
        "fake",
        "demo.ts",
      ]) {
        expect(existsSync(path.join(own, required)), `${p.name}/${required}`).toBe(true);
      }
      expect(existsSync(path.join(own, "commands.ts")) || !p.commands?.length).toBe(true);
    });
  }
});

/** Folders of `root` that reach each other through value imports (type-only ones vanish). */
function folderCycles(root: string): string[] {
  const folderOf = (file: string) => {
    const parts = path.relative(root, file).split(path.sep);
    return parts.length > 1 ? parts[0]! : undefined;
  };
  const edges = new Map<string, Set<string>>();
  const shipped = filesUnder(root).filter(
    (f) => !/\.(test|conformance)\.ts$/.test(f) && !f.includes(`${path.sep}testing${path.sep}`),
  );
  for (const file of shipped) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(VALUE_IMPORT)) {
      const spec = m[1] ?? m[2]!;
      const target = path.resolve(path.dirname(file), spec);
      const [a, b] = [folderOf(file), folderOf(target)];
      if (!target.startsWith(root) || !a || !b || a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    if (from === to) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return [...(edges.get(from) ?? [])].some((n) => reaches(n, to, seen));
  };
  const cycles: string[] = [];
  for (const [a, bs] of edges) for (const b of bs) if (reaches(b, a)) cycles.push(`${a} -> ${b}`);
  return cycles;
}

const VALUE_IMPORT =
  /^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/gm;

describe("folders import one way", () => {
  const SRC = fileURLToPath(new URL("../src/", import.meta.url));
  const roots = ["engine", "infra", ...pipelines.map((p) => `pipelines/${p.name}`)];
  for (const root of roots) {
    it(`src/${root} has no folder cycles`, () => {
      expect(folderCycles(path.join(SRC, root))).toEqual([]);
    });
  }
});

/** Static imports (type and value) of `file` that stay inside src/, as absolute paths. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)) {
    out.push(path.resolve(path.dirname(file), m[1]!));
  }
  return out;
}

/**
 * Import loops, type-only imports included, among the files `entry` reaches statically: each as
 * `a.ts -> b.ts -> … -> a.ts` (relative to src/). Depth-first search; a back edge is a loop.
 */
function contractCycles(entry: string, src: string): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string) => {
    const at = stack.indexOf(file);
    if (at >= 0) {
      cycles.push([...stack.slice(at), file].map((f) => path.relative(src, f)).join(" -> "));
      return;
    }
    if (done.has(file)) return;
    stack.push(file);
    for (const next of staticImports(file)) visit(next);
    stack.pop();
    done.add(file);
  };
  visit(entry);
  return cycles;
}

describe("the pipeline contract", () => {
  const SRC = fileURLToPath(new URL("../src/", import.meta.url));

  it("the files the `tidemark` entry reaches import no loop, not even through types", () => {
    expect(contractCycles(path.join(SRC, "sdk/index.ts"), SRC)).toEqual([]);
  });

  it("no contract file names the process's Runtime or Registry", () => {
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of staticImports(file)) walk(next);
    };
    walk(path.join(SRC, "sdk/index.ts"));
    const wiring = [...reached].filter((f) =>
      /runtime\/runtime\.ts$|registry\/registry\.ts$/.test(f),
    );
    expect(wiring.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it("the loop finder finds a loop through type-only imports", () => {
    const dir = testTempDir("tm-arch-");
    writeFileSync(path.join(dir, "a.ts"), 'import type { B } from "./b.ts";\nexport type A = B;\n');
    writeFileSync(path.join(dir, "b.ts"), 'import type { A } from "./a.ts";\nexport type B = A;\n');
    expect(contractCycles(path.join(dir, "a.ts"), dir)).toEqual(["a.ts -> b.ts -> a.ts"]);
  });
});

describe("test code stays with the tests", () => {
  const SRC = fileURLToPath(new URL("../src/", import.meta.url));
  it("no shipped file outside src/testing imports vitest (suites and children live in src/testing)", () => {
    const offenders = filesUnder(SRC)
      .filter((f) => !f.endsWith(".test.ts") && !f.includes(`${path.sep}testing${path.sep}`))
      .filter((f) => /from\s+"vitest"/.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
