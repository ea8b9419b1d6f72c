/**
 * The XLSX floor of bench/snapshots.ts: what a user would write to read the workbook with the
 * library the pipeline reads it with — exceljs's streaming WorkbookReader, the same options,
 * every sheet and row, each cell's value touched — with no gate, facts or output. Measured like
 * an ingestion: a fresh process, wall time and peak RSS.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { type ChildRun, MEASURE_LINE, runCliScript } from "./support/cli-run.ts";

/** Reads `xlsx` in a fresh process; stdout is the number of rows read. */
export async function xlsxFloor(xlsx: string, workDir: string): Promise<ChildRun> {
  const script = path.join(workDir, "xlsx-floor.mjs");
  writeFileSync(
    script,
    `const ExcelJS = (await import(${JSON.stringify(import.meta.resolve("exceljs"))})).default;
const reader = new ExcelJS.stream.xlsx.WorkbookReader(${JSON.stringify(xlsx)}, {
  worksheets: "emit", sharedStrings: "cache", styles: "cache", hyperlinks: "ignore", entries: "ignore",
});
let rows = 0;
let cells = 0;
for await (const sheet of reader) {
  for await (const row of sheet) {
    rows++;
    for (const v of row.values) if (v !== undefined) cells++;
  }
}
process.stdout.write(String(rows));
${MEASURE_LINE}
`,
  );
  return runCliScript(script);
}
