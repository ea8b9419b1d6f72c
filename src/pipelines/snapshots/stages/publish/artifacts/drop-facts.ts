import { createReadStream } from "node:fs";
import { rename } from "node:fs/promises";
import { LineSink } from "./line-sink.ts";

const CATEGORY = '"category_key":';
const ROW_NUMBER = '"row_number":';

/**
 * `category_json \t row_number` of a facts line as written by the emitter (run_id and supplier
 * never contain quotes, so the first occurrences are the real fields).
 */
export function factPosition(line: string): string {
  let cat = "";
  const c = line.indexOf(CATEGORY);
  const r = line.indexOf(ROW_NUMBER);
  if (c >= 0 && c < r) cat = line.slice(c + CATEGORY.length, line.indexOf(',"row_id":', c));
  let end = r + ROW_NUMBER.length;
  while (line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
  return `${cat}\t${line.slice(r + ROW_NUMBER.length, end)}`;
}

/**
 * Rewrites an NDJSON facts file without the facts at the given positions
 * (`category_json \t row_number`), streaming; the original is replaced by rename.
 * Returns the number of lines kept.
 */
export async function dropFacts(file: string, drop: ReadonlySet<string>): Promise<number> {
  const temp = `${file}.dedupe.tmp`;
  const out = new LineSink(temp);
  let rest = "";
  try {
    for await (const chunk of createReadStream(file, {
      encoding: "utf8",
      highWaterMark: 1 << 20,
    })) {
      const text = rest + (chunk as string);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        const line = text.slice(start, nl + 1);
        if (!drop.has(factPosition(line))) out.writeLine(line);
        start = nl + 1;
      }
      rest = text.slice(start);
    }
  } finally {
    out.close();
  }
  await rename(temp, file);
  return out.lines;
}
