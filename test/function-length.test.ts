// No function in shipped code runs over 100 lines: a long one is split along its phases.
// Tests, conformance suites and src/testing are left out.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const MAX_LINES = 100;

function shippedFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "testing" ? [] : shippedFiles(full);
    return full.endsWith(".ts") && !/\.(test|conformance)\.ts$/.test(name) ? [full] : [];
  });
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText(sf);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return parent.name.getText(sf);
  }
  return "<anonymous>";
}

function isFunctionWithBody(node: ts.Node): boolean {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  );
}

/** "<file>:<line> <name> (<n> lines)" for every function over `max` lines in the file. */
function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionWithBody(node)) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const last = sf.getLineAndCharacterOfPosition(node.end).line + 1;
      const lines = last - first + 1;
      if (lines > max) out.push(`${file}:${first} ${nameOf(node, sf)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("function length", () => {
  it(`no function in src/ (tests and src/testing aside) is over ${MAX_LINES} lines`, () => {
    const long = shippedFiles(SRC).flatMap((file) =>
      longFunctions(path.relative(SRC, file), readFileSync(file, "utf8"), MAX_LINES),
    );
    expect(long).toEqual([]);
  });

  it("finds a long function wherever it is declared", () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `class A {\n  m() {\n${body}\n  }\n}\nconst f = () => {\n${body}\n};\n`;
    expect(longFunctions("x.ts", text, MAX_LINES)).toEqual([
      `x.ts:2 m (${MAX_LINES + 2} lines)`,
      `x.ts:${MAX_LINES + 5} f (${MAX_LINES + 2} lines)`,
    ]);
  });
});
