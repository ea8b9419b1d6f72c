// The API reference documents every name each public entry exports, and no other.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);

/** The names an entry's hand-written lists export (`export { a, type B, c as d } from …`). */
function exportedNames(entry: string): string[] {
  const text = readFileSync(new URL(`src/sdk/${entry}.ts`, ROOT), "utf8");
  const names: string[] = [];
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const raw of m[1]!.split(",")) {
      const name = raw.trim().replace(/^type\s+/, "");
      if (name) names.push(name.split(/\s+as\s+/).at(-1)!);
    }
  }
  return names.sort();
}

/** The names a reference page lists (`- \`name\` — …`). */
function documentedNames(page: string): string[] {
  const text = readFileSync(new URL(`docs/api/${page}.md`, ROOT), "utf8");
  return [...text.matchAll(/^- `(\w+)` — /gm)].map((m) => m[1]!).sort();
}

for (const [entry, page] of [
  ["index", "tidemark"],
  ["kit", "kit"],
  ["testing", "testing"],
] as const) {
  it(`docs/api/${page}.md documents exactly what src/sdk/${entry}.ts exports`, () => {
    const exported = exportedNames(entry);
    expect(exported.length).toBeGreaterThan(5);
    expect(documentedNames(page)).toEqual(exported);
  });
}

it("no entry uses `export *` (each list is written by hand)", () => {
  for (const entry of ["index", "kit", "testing"]) {
    const text = readFileSync(new URL(`src/sdk/${entry}.ts`, ROOT), "utf8");
    expect(text).not.toMatch(/export \*/);
  }
});
