/** exceljs cell values → the emitter's CellValue (shared by the in-thread and worker reads). */
import type ExcelJS from "exceljs";
import { CellErrorValue, type CellValue } from "../../quality/emit/value-parsers.ts";

/** A cell as the emitter sees it: formulas give their result, rich text its plain text. */
export function cellValue(v: unknown): CellValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (v instanceof Date) return v;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    if ("error" in o) return new CellErrorValue(String(o.error));
    if ("result" in o) return cellValue(o.result);
    if ("formula" in o || "sharedFormula" in o) return null;
    // Only a reader that missed xl/sharedStrings.xml leaves these: never pass one off as text.
    if ("sharedString" in o) throw new Error(`shared string ${String(o.sharedString)} not found`);
    if (Array.isArray(o.richText)) {
      return (o.richText as Array<{ text?: unknown }>).map((r) => String(r.text ?? "")).join("");
    }
    if ("text" in o) return cellValue(o.text);
  }
  return String(v);
}

/** The row's cells from column A on (exceljs rows are 1-based sparse arrays). */
export function rowCells(row: ExcelJS.Row): CellValue[] {
  const values = row.values as unknown[];
  const cells: CellValue[] = new Array(Math.max(values.length - 1, 0));
  for (let i = 1; i < values.length; i++) cells[i - 1] = cellValue(values[i]);
  return cells;
}

/** True when no cell holds anything but blanks. */
export const isBlank = (cells: readonly CellValue[]) =>
  cells.every((c) => c === null || c === undefined || (typeof c === "string" && c.trim() === ""));

/** The ZIP parser's terse error codes, said for a user. */
export const zipProblem = (err: { message: string }) =>
  err.message === "FILE_ENDED"
    ? "the file ends inside its ZIP structure (truncated?)"
    : err.message;

/** The reader options both reads use (and the bench's floor mirrors). */
export const READER_OPTIONS = {
  worksheets: "emit",
  sharedStrings: "cache",
  styles: "cache",
  hyperlinks: "ignore",
  entries: "ignore",
} as const;
