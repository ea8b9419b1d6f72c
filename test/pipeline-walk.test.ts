// The newcomer's walk: each pipeline's doc names, under "## Walking the main flow", the files one
// parameter passes through from the CLI to the writes, in order. The walk must be real and go
// down the layers: every file exists, each step imports the next (or hands over through the
// engine: a job run by name or a queue message), no file comes twice, and no step imports a
// file the walk already left (nothing calls back up). The doc cannot drift from the code.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const PIPELINES = ["books", "email-analytics", "mercari", "rakuten", "snapshots"];
const HEADING = "## Walking the main flow";
/** `import … from "./x.ts"` and `import("./x.ts")`, type-only imports left out. */
const VALUE_IMPORT =
  /^(?:import|export)\s(?!type\s)[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/gm;
/** Type-only imports too: the last hop may reach the interface the writes go through. */
const ANY_IMPORT = /^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/gm;
/** A hop through the engine: the step names it, and the next step is a job or a queue handler. */
const ENGINE_HOP = /\((?:through|via) the engine\b/;

interface Step {
  file: string;
  viaEngine: boolean;
  line: string;
}

/** The numbered list under the heading: each item starts with the file's path in backticks. */
function walkSteps(doc: string): Step[] {
  const start = doc.indexOf(`${HEADING}\n`);
  if (start < 0) return [];
  const body = doc.slice(start + HEADING.length).split(/\n## /)[0] ?? "";
  // An item runs on over its indented continuation lines, up to the next item or a blank line.
  return [...body.matchAll(/^\d+\.\s+`([^`]+\.ts)`(.*(?:\n {2,}\S.*)*)/gm)].map((m) => ({
    file: m[1] ?? "",
    viaEngine: ENGINE_HOP.test((m[2] ?? "").replace(/\s+/g, " ")),
    line: m[0],
  }));
}

function valueImports(file: string, types = false): Set<string> {
  const text = readFileSync(path.join(REPO, file), "utf8");
  const out = new Set<string>();
  for (const m of text.matchAll(types ? ANY_IMPORT : VALUE_IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec) out.add(path.relative(REPO, path.resolve(path.dirname(path.join(REPO, file)), spec)));
  }
  return out;
}

/**
 * The writes may go through an injected interface (a storage the job opened): the walk's last
 * step is then that interface under storage/, reached by a type import.
 */
function lastHopToInterface(from: string, to: string, i: number, steps: readonly Step[]): boolean {
  return i === steps.length - 2 && /\/storage\//.test(to) && valueImports(from, true).has(to);
}

function walkProblems(pipeline: string, steps: readonly Step[]): string[] {
  const problems: string[] = [];
  const root = `src/pipelines/${pipeline}/`;
  if (steps.length < 4) return [`${pipeline}: the walk has ${steps.length} steps (at least 4)`];
  const first = steps[0]?.file ?? "";
  if (!/\/commands(\.ts|\/)/.test(first))
    problems.push(`${pipeline}: starts at ${first}, not a command`);
  if (!steps.some((s) => s.file.startsWith(`${root}jobs/`)))
    problems.push(`${pipeline}: the walk never reaches a job under jobs/`);
  const last = steps.at(-1)?.file ?? "";
  if (!last.startsWith(`${root}repos/`) && !/\/storage\//.test(last))
    problems.push(`${pipeline}: ends at ${last}, not where the writes are (repos/ or storage/)`);
  const seen = new Set<string>();
  steps.forEach((step, i) => {
    if (!step.file.startsWith(root)) problems.push(`${pipeline}: ${step.file} is outside ${root}`);
    if (!existsSync(path.join(REPO, step.file))) {
      problems.push(`${pipeline}: ${step.file} does not exist`);
      return;
    }
    if (seen.has(step.file)) problems.push(`${pipeline}: ${step.file} comes twice`);
    seen.add(step.file);
    const next = steps[i + 1];
    const imports = valueImports(step.file);
    if (next && existsSync(path.join(REPO, next.file))) {
      if (step.viaEngine) {
        if (!/\/(jobs|queue)\//.test(next.file))
          problems.push(
            `${pipeline}: ${step.file} hands over through the engine to ${next.file}, not a job or queue handler`,
          );
      } else if (!imports.has(next.file) && !lastHopToInterface(step.file, next.file, i, steps)) {
        problems.push(`${pipeline}: ${step.file} does not import ${next.file}`);
      }
    }
    for (const earlier of steps.slice(0, i)) {
      if (imports.has(earlier.file))
        problems.push(`${pipeline}: ${step.file} goes back up to ${earlier.file}`);
    }
  });
  return problems;
}

describe("the newcomer's walk through each pipeline", () => {
  for (const pipeline of PIPELINES) {
    it(`${pipeline}: docs/pipelines/${pipeline}.md walks down from the CLI to the writes`, () => {
      const doc = readFileSync(path.join(REPO, "docs/pipelines", `${pipeline}.md`), "utf8");
      expect(walkProblems(pipeline, walkSteps(doc))).toEqual([]);
    });
  }

  it("fails on a walk that goes back up, skips a link or repeats a file", () => {
    const walk = (files: string[]) =>
      walkProblems(
        "mercari",
        files.map((file) => ({ file, viaEngine: false, line: file })),
      );
    const root = "src/pipelines/mercari/";
    expect(walk([`${root}index.ts`])).toEqual(["mercari: the walk has 1 steps (at least 4)"]);
    const problems = walk([
      `${root}commands.ts`,
      `${root}jobs/nope.ts`,
      `${root}commands.ts`,
      `${root}repos/product-repo.ts`,
    ]);
    expect(problems).toContain(`mercari: ${root}jobs/nope.ts does not exist`);
    expect(problems).toContain(`mercari: ${root}commands.ts comes twice`);
    expect(problems.some((p) => p.includes("does not import"))).toBe(true);
  });

  it("reads the numbered list under the heading and the engine hops", () => {
    const doc = `# x\n${HEADING}\n\n1. \`a/commands.ts\` parses it and then\n   (through the engine: runJob)\n2. \`a/jobs/j.ts\` runs\n\n## Next\n3. \`a/b.ts\` not part\n`;
    expect(walkSteps(doc)).toEqual([
      expect.objectContaining({ file: "a/commands.ts", viaEngine: true }),
      expect.objectContaining({ file: "a/jobs/j.ts", viaEngine: false }),
    ]);
  });
});
