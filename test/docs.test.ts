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
// A section sign, a numbered spec, a requirement id (`JOB-R-01`), "the seed's"/"the issue",
// "the specification" or "the brief": documents a reader of this repository does not have.
const INTERNAL =
  /§|\bseed\s*0\d\d\b|\bseed\s+§|ETL CANON|\bthe issue(?:'s)?\b|\bJOB-[A-Z]+-\d+\b|\b(?:the )?seed's\b|\bspec section\b|(?<!OpenAPI )\bspecifications?(?:'s)?\b|\bthe brief\b|\bseed (?:run|result)s?\b/i;
// Lines that name the sign itself rather than cite a document: the HTML entity table that
// decodes `&sect;`, and the metrics lint that rejects such references in help texts.
const CODE_ALLOWED = [
  /^\s*sect: "§",$/,
  /INTERNAL_REFERENCE = /,
  /internal references \(§/,
  /"Age since the switch \(seed 002 §14\)"/,
];

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, ext) : name.endsWith(ext) ? [full] : [];
  });
}

const DOCS = [path.join(ROOT, "README.md"), ...filesUnder(path.join(ROOT, "docs"), ".md")];
// This file names the patterns it looks for, so it is the one file left out.
const CODE = ["src", "test", "bench", "scripts", "examples", "templates"]
  .flatMap((dir) => filesUnder(path.join(ROOT, dir), ".ts"))
  .filter((file) => file !== fileURLToPath(import.meta.url));

describe("code comments and strings cite no document outside the repository", () => {
  it("code (src/, test/, bench/, scripts/, examples/, templates/) cites no outside document", () => {
    const hits = CODE.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((text, i) => ({ at: `${path.relative(ROOT, file)}:${i + 1}`, text }))
        .filter((l) => INTERNAL.test(l.text) && !CODE_ALLOWED.some((ok) => ok.test(l.text))),
    );
    expect(hits).toEqual([]);
  });
});

/** Names a markdown table lists as its first column in backticks, under `heading`. */
function tableUnder(doc: string, heading: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) return [`(no heading ${heading})`];
  const section = doc.slice(start + heading.length + 2).split(/\n#/)[0]!;
  return [...section.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]!).sort();
}

/** What a folder holds, as the doc names it: folders with a slash, files but tests without. */
function entriesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() || !/\.test\.ts$/.test(e.name))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

describe("docs/architecture.md lists the folders the tree has", () => {
  const doc = readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");

  it("the layers list names every folder of src/, and only those", () => {
    const layers = doc.slice(doc.indexOf("\n## Layers\n"));
    const open = layers.indexOf("```\n") + 4;
    const block = layers.slice(open, layers.indexOf("\n```", open));
    const listed = [...block.matchAll(/^ {2}([a-z-]+\/)/gm)].map((m) => m[1]!).sort();
    const folders = entriesOf(path.join(ROOT, "src")).filter((e) => e.endsWith("/"));
    expect(listed).toEqual(folders);
  });

  it("the layers list names every pipeline folder, and only those", () => {
    const named = /pipelines\/\s+one folder per pipeline \(([^)]*)\)/.exec(doc)?.[1] ?? "";
    const folders = entriesOf(path.join(ROOT, "src", "pipelines")).filter((e) => e.endsWith("/"));
    expect(named.split(/,\s*/).sort()).toEqual(folders.map((f) => f.slice(0, -1)));
  });

  for (const folder of ["engine", "infra", "testing"]) {
    it(`its table of src/${folder}/ names every entry there, and only those`, () => {
      const listed = tableUnder(doc, `### Folders of \`src/${folder}/\``);
      expect(listed).toEqual(entriesOf(path.join(ROOT, "src", folder)));
    });
  }
});

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
    // The description ends with the pipelines in brackets, `name: what it does` each; the names
    // are those this build registers, no more and no fewer.
    const list = /\(([^()]*)\)\.?$/.exec(pkg.description)?.[1] ?? "";
    const named = [...list.matchAll(/(?:^|, )([a-z][a-z-]*): /g)].map((m) => m[1]);
    expect(named.sort()).toEqual(pipelines.map((p) => p.name).sort());
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
