/** One leaf of a summary: its dotted path and its value. */
type Leaf = [path: string, value: unknown];

function isScalar(v: unknown): boolean {
  return v === null || (typeof v !== "object" && !(typeof v === "string" && v.includes("\n")));
}

/** Leaves of a value with keys joined by dots; lists of scalars stay one leaf. */
export function flattenSummary(value: Record<string, unknown>, prefix = ""): Leaf[] {
  const out: Leaf[] = [];
  for (const [key, v] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(v) && (v.length === 0 || v.every(isScalar))) out.push([path, v]);
    else if (v !== null && typeof v === "object") {
      const entries = Array.isArray(v) ? Object.fromEntries(v.map((x, i) => [String(i), x])) : v;
      const nested = flattenSummary(entries as Record<string, unknown>, path);
      out.push(...(nested.length > 0 ? nested : [[path, v] as Leaf]));
    } else out.push([path, v]);
  }
  return out;
}

function scalarText(v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (Array.isArray(v)) return v.length === 0 ? "(none)" : v.map(scalarText).join(", ");
  if (typeof v === "object") return "(none)";
  return String(v);
}

/**
 * A summary as aligned `key: value` lines (keys right-aligned, nested keys joined by dots);
 * multi-line text is printed as a block starting beside its key.
 */
export function readableSummary(summary: Record<string, unknown>, indent = "  "): string[] {
  const leaves = flattenSummary(summary);
  const width = Math.max(0, ...leaves.map(([k]) => k.length));
  const lines: string[] = [];
  for (const [key, value] of leaves) {
    const label = `${indent}${key.padStart(width)}:`;
    if (typeof value === "string" && value.includes("\n")) {
      // The first line stays beside its key; the rest align under it.
      const [first = "", ...rest] = textBlock(value, `${indent}${" ".repeat(width + 2)}`);
      lines.push(`${label} ${first.trimStart()}`, ...rest);
    } else {
      lines.push(`${label} ${scalarText(value)}`);
    }
  }
  return lines;
}

/** Multi-line text as lines with a common indent (trailing blank lines dropped). */
export function textBlock(text: string, indent: string): string[] {
  return text
    .replace(/\s+$/, "")
    .split(/\r?\n/)
    .map((line) => (line === "" ? "" : `${indent}${line}`));
}

/**
 * JSON of a value with every multi-line string replaced by a pointer, and those strings as
 * `path:` + indented blocks, so text such as a digest reads as text (`runs show`).
 */
export function jsonWithTextBlocks(value: unknown): { json: string; blocks: string[] } {
  const blocks: string[] = [];
  const walk = (v: unknown, path: string): unknown => {
    if (typeof v === "string" && v.includes("\n")) {
      const lines = textBlock(v, "    ");
      blocks.push(`${path}:`, ...lines);
      return `(${lines.length} lines, shown below)`;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}.${i}`));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${path}.${k}`)]));
    }
    return v;
  };
  const json = JSON.stringify(walk(value, "summary"), null, 2);
  return { json, blocks };
}
