import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import type ExcelJS from "exceljs";
import type { SupplierConfig } from "../../intake/config/supplier-config.ts";
import type { RowEmitter } from "../../quality/emit/row-emitter.ts";
import { type CompiledSchema, GateFailure, mapHeader } from "../../quality/emit/schema.ts";
import { CellErrorValue, type CellValue } from "../../quality/emit/value-parsers.ts";
import { SourceReadError } from "../input/byte-source.ts";
import { openWorkbookReader } from "./xlsx-workbook-reader.ts";

/** How to read a workbook. */
export interface XlsxOptions {
  categories: SupplierConfig["categories"];
  schema: CompiledSchema;
  emitter: RowEmitter;
  signal?: AbortSignal;
  /** Called after each sheet's rows (test hooks). */
  onSheet?: (name: string) => void;
  /**
   * An existing folder for the worksheets set aside until the shared strings are read; the
   * caller removes it. Without it the read makes (and removes) one in the OS temp folder.
   */
  spoolDir?: string;
}

/** Which sheets were read, skipped or empty. */
export interface XlsxReadInfo {
  sheets: Array<{ name: string; category_key: string | null; rows: number }>;
  skipped_sheets: Array<{ name: string; why: "hidden" | "not configured" | "empty" | "not first" }>;
}

interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name?: string;
  state?: string;
}

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

function rowCells(row: ExcelJS.Row): CellValue[] {
  const values = row.values as unknown[];
  const cells: CellValue[] = [];
  // exceljs rows are 1-based sparse arrays.
  for (let i = 1; i < values.length; i++) cells.push(cellValue(values[i]));
  return cells;
}

const isBlank = (cells: CellValue[]) =>
  cells.every((c) => c === null || c === undefined || (typeof c === "string" && c.trim() === ""));

/** The ZIP parser's terse error codes, said for a user. */
const zipProblem = (err: Error) =>
  err.message === "FILE_ENDED"
    ? "the file ends inside its ZIP structure (truncated?)"
    : err.message;

/**
 * Extractor for XLSX, streaming with exceljs. Categories from sheets: each visible
 * sheet is one category_key (named by categories.sheets or after the sheet); without
 * categories only the first visible sheet is read. Each sheet's first non-blank row is its
 * header (gate schema check per sheet).
 */
export async function readXlsx(input: Readable, o: XlsxOptions): Promise<XlsxReadInfo> {
  if (o.spoolDir !== undefined) return readSheets(input, o, o.spoolDir);
  const spoolDir = await mkdtemp(path.join(tmpdir(), "tidemark-xlsx-"));
  try {
    return await readSheets(input, o, spoolDir);
  } finally {
    await rm(spoolDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function readSheets(input: Readable, o: XlsxOptions, spoolDir: string) {
  const info: XlsxReadInfo = { sheets: [], skipped_sheets: [] };
  const bySheet = o.categories?.from === "sheet" ? o.categories : undefined;
  const wanted = new Set(Object.keys(bySheet?.sheets ?? {}));
  const reader = await openWorkbookReader(
    input,
    {
      worksheets: "emit",
      sharedStrings: "cache",
      styles: "cache",
      hyperlinks: "ignore",
      entries: "ignore",
    },
    spoolDir,
  );
  let worksheets = 0;
  let readOne = false;
  // Errors thrown by our own code are bugs, not a bad file: only reader errors mean unreadable.
  let inEmitter = false;
  try {
    for await (const raw of reader) {
      worksheets++;
      const ws = raw as unknown as SheetReader;
      const name = ws.name ?? `Sheet${worksheets}`;
      let category: string | undefined;
      let skip: XlsxReadInfo["skipped_sheets"][number]["why"] | undefined;
      if (ws.state === "hidden" || ws.state === "veryHidden") skip = "hidden";
      else if (bySheet?.sheets) {
        category = bySheet.sheets[name];
        if (category === undefined) {
          if (bySheet.unknown_sheets === "fail") {
            throw new GateFailure(
              "SHEET_UNEXPECTED",
              `sheet ${JSON.stringify(name)} is not in categories.sheets`,
            );
          }
          skip = "not configured";
        }
      } else if (bySheet) category = name;
      else if (readOne) skip = "not first";
      if (skip) {
        for await (const _ of ws) {
          // drain: the zip entry must be consumed before the next one
        }
        info.skipped_sheets.push({ name, why: skip });
        continue;
      }
      let header = false;
      let rows = 0;
      for await (const row of ws) {
        const cells = rowCells(row);
        if (isBlank(cells)) continue;
        inEmitter = true;
        if (!header) {
          header = true;
          o.emitter.begin(
            mapHeader(o.schema, cells, `sheet ${JSON.stringify(name)}`),
            category,
            false,
          );
        } else {
          o.emitter.row(cells, row.number);
          rows++;
        }
        inEmitter = false;
      }
      o.signal?.throwIfAborted();
      if (!header) {
        info.skipped_sheets.push({ name, why: "empty" });
        continue;
      }
      readOne = true;
      wanted.delete(name);
      info.sheets.push({ name, category_key: category ?? null, rows });
      o.onSheet?.(name);
    }
  } catch (err) {
    if (err instanceof GateFailure || inEmitter || (o.signal?.aborted ?? false)) throw err;
    // The input could not be read (its caller reports that), not a bad workbook.
    if (err instanceof SourceReadError) throw err;
    throw new GateFailure(
      "FILE_UNREADABLE",
      `not a readable workbook: ${zipProblem(err as Error)}`,
    );
  }
  if (worksheets === 0)
    throw new GateFailure("FORMAT_UNRECOGNIZED", "a ZIP file without worksheets");
  if (wanted.size > 0) {
    throw new GateFailure("SHEET_MISSING", `missing or empty sheet(s): ${[...wanted].join(", ")}`);
  }
  if (!readOne) throw new GateFailure("HEADER_MISMATCH", "no sheet has a header row");
  return info;
}
