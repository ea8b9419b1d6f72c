import { formatTable } from "../../engine/output/format-table.ts";

/** Narrowest the last column gets beside the others; narrower, it goes below its row. */
const MIN_LAST_COLUMN = 24;

/** Words of `text` on lines of at most `width` characters (a longer word is cut). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    while (rest.length > width) {
      if (line) lines.push(line);
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
      line = "";
    }
    if (!line) line = rest;
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line) lines.push(line);
  return lines.length > 0 ? lines : [""];
}

/**
 * formatTable within `width` columns: the last column (a description) wraps in the room the
 * others leave, or goes on indented lines below its row when too little is left. Unchanged
 * when it already fits (or width is Infinity: output that is not a terminal stays greppable).
 */
export function fitTable(headers: string[], rows: string[][], width: number): string {
  const plain = formatTable(headers, rows);
  if (plain.split("\n").every((l) => l.length <= width)) return plain;
  const cells = [headers, ...rows];
  const last = headers.length - 1;
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const before = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
  const room = width - before;
  const lead = (r: string[]) =>
    r
      .slice(0, last)
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ");
  if (before - 2 > width) return blocks(headers, rows, width);
  const out: string[] = [];
  for (const r of cells) {
    if (room >= MIN_LAST_COLUMN) {
      const [first, ...more] = wrapWords(r[last] ?? "", room);
      out.push(`${lead(r)}  ${first}`.trimEnd());
      for (const l of more) out.push(`${" ".repeat(before)}${l}`);
    } else {
      out.push(lead(r).trimEnd());
      if (r[last]) for (const l of wrapWords(r[last], width - 4)) out.push(`    ${l}`);
    }
  }
  return out.join("\n");
}

/**
 * Rows as blocks, for columns that cannot fit side by side: the first cell on its own line,
 * then the other non-empty cells as `header: value` and the last cell, indented and wrapped.
 */
function blocks(headers: string[], rows: string[][], width: number): string {
  const out: string[] = [];
  const last = headers.length - 1;
  for (const r of rows) {
    out.push(r[0] ?? "");
    const middle = r
      .slice(1, last)
      .map((c, i) => (c ? `${(headers[i + 1] ?? "").toLowerCase()}: ${c}` : ""))
      .filter(Boolean)
      .join("; ");
    for (const text of [middle, r[last] ?? ""]) {
      if (text) for (const l of wrapWords(text, width - 4)) out.push(`    ${l}`);
    }
  }
  return out.join("\n");
}
