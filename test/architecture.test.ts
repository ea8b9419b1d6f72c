// What the linter cannot say about the layers: pipelines never import each other, every
// pipeline has the same top-level shape, folders (not only files) import one way, and the
// pipeline contract has no import loop, type-only imports included.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

/**
 * The one pipeline shape (docs/architecture.md, "The pipeline shape"): the only names a
 * pipeline folder may hold at its top level, which of them it must hold, and the fixed files of
 * some folders. Code of its own topics lives in `stages/<stage>/`; tests live outside (a built-in
 * pipeline's in test/<name>/, an outside pipeline's in its package's test/).
 */
const SHAPE = {
  required: [
    "index.ts",
    "params.ts",
    "settings.ts",
    "tables.ts",
    "demo.ts",
    "migrations",
    "jobs",
    "repos",
    "fake",
  ],
  optional: [
    "commands.ts",
    "routes.ts",
    "client",
    "commands",
    "routes",
    "panel",
    "monitoring",
    "queue",
    "demo",
    "stages",
  ],
  fixed: { fake: "start-fake.ts", monitoring: "status.ts", queue: "handlers.ts" } as Record<
    string,
    string
  >,
};
/** What an outside pipeline's package adds beside its pipeline (the scaffold's, the example's). */
const PACKAGE_FILES = [
  "README.md",
  "package.json",
  "_package.json",
  "tsconfig.json",
  "vitest.config.ts",
  "tidemark.yaml",
  "test",
  ".gitignore",
  "_gitignore",
  "node_modules",
  "data",
];

/** Every way `dir` departs from the shape, one line each (empty when it has the shape). */
function shapeProblems(dir: string, extra: readonly string[] = []): string[] {
  const names = readdirSync(dir);
  const allowed = new Set([...SHAPE.required, ...SHAPE.optional, ...extra]);
  const problems = names.filter((n) => !allowed.has(n)).map((n) => `${n}: not in the shape`);
  for (const n of SHAPE.required) if (!names.includes(n)) problems.push(`${n}: missing`);
  for (const [folder, file] of Object.entries(SHAPE.fixed)) {
    if (names.includes(folder) && !existsSync(path.join(dir, folder, file))) {
      problems.push(`${folder}/${file}: missing`);
    }
  }
  if (names.includes("stages")) {
    for (const n of readdirSync(path.join(dir, "stages"))) {
      if (!statSync(path.join(dir, "stages", n)).isDirectory())
        problems.push(`stages/${n}: stages/ holds folders only`);
    }
  }
  if (names.includes("commands.ts") !== names.includes("commands")) {
    problems.push("commands.ts and commands/ go together");
  }
  for (const f of filesUnder(dir)) {
    const rel = path.relative(dir, f);
    if (rel.startsWith(`node_modules${path.sep}`) || rel.startsWith(`test${path.sep}`)) continue;
    if (rel.endsWith(".test.ts")) problems.push(`${rel}: tests live outside the pipeline folder`);
    if (rel.includes(path.sep) && path.basename(rel) === "index.ts")
      problems.push(`${rel}: no barrels below the top level`);
  }
  return problems;
}

describe("the pipeline shape", () => {
  it("the scaffold's template and the outside example have it too", () => {
    const repo = fileURLToPath(new URL("../", import.meta.url));
    expect(shapeProblems(path.join(repo, "templates", "pipeline"), PACKAGE_FILES)).toEqual([]);
    expect(shapeProblems(path.join(repo, "examples", "registry-feed"), PACKAGE_FILES)).toEqual([]);
  });

  it("fails on a file outside the allow-list, a missing fixed file and a colocated test", () => {
    const dir = testTempDir("tm-shape-");
    for (const n of SHAPE.required) {
      if (n.endsWith(".ts")) writeFileSync(path.join(dir, n), "");
      else mkdirSync(path.join(dir, n));
    }
    writeFileSync(path.join(dir, "fake", "start-fake.ts"), "");
    expect(shapeProblems(dir)).toEqual([]);
    writeFileSync(path.join(dir, "deps.ts"), "");
    mkdirSync(path.join(dir, "queue"));
    writeFileSync(path.join(dir, "jobs", "run.test.ts"), "");
    expect(shapeProblems(dir)).toEqual([
      "deps.ts: not in the shape",
      "queue/handlers.ts: missing",
      `jobs${path.sep}run.test.ts: tests live outside the pipeline folder`,
    ]);
  });
});

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

    it(`${p.name} has the one pipeline shape (an allow-list)`, () => {
      expect(shapeProblems(path.join(ROOT, p.name))).toEqual([]);
    });
  }
});

/** Folders of `root` that reach each other through imports, type-only ones included. */
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
    for (const m of text.matchAll(ANY_IMPORT)) {
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

const ANY_IMPORT = /^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/gm;

describe("folders import one way", () => {
  const SRC = fileURLToPath(new URL("../src/", import.meta.url));
  const roots = [
    "engine",
    "infra",
    "server",
    "cli",
    ...pipelines.map((p) => `pipelines/${p.name}`),
  ];
  it("a loop of type-only imports between two folders counts", () => {
    const dir = testTempDir("tm-cycle-");
    mkdirSync(path.join(dir, "a"));
    mkdirSync(path.join(dir, "b"));
    writeFileSync(
      path.join(dir, "a", "x.ts"),
      'import type { Y } from "../b/y.ts";\nexport type X = Y;\n',
    );
    writeFileSync(
      path.join(dir, "b", "y.ts"),
      'import type { X } from "../a/x.ts";\nexport type Y = X;\n',
    );
    expect(folderCycles(dir)).toEqual(["a -> b", "b -> a"]);
  });
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
