import { readFileSync } from "node:fs";

/** A shell block of a guide that its test runs, with the tags of its `checked:` marker. */
export interface CheckedBlock {
  tags: string[];
  lines: string[];
}

const MARKER = /^<!-- checked: ([\w, -]+) -->$/;

/**
 * The shell blocks of a Markdown file that are marked to be run: a line
 * `<!-- checked: embedded -->` (tags: embedded, postgres, background) right above a ```sh block.
 */
export function checkedBlocks(file: string): CheckedBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const out: CheckedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]!.trim());
    if (!marker || lines[i + 1]?.trim() !== "```sh") continue;
    const end = lines.indexOf("```", i + 2);
    if (end < 0) throw new Error(`${file}:${i + 2}: the block never closes`);
    out.push({ tags: marker[1]!.split(/,\s*/), lines: lines.slice(i + 2, end) });
    i = end;
  }
  return out;
}
