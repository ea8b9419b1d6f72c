import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import type ExcelJS from "exceljs";
import { GateFailure } from "../../quality/emit/schema.ts";
import { SourceReadError } from "../input/byte-source.ts";
import { isBlank, READER_OPTIONS, rowCells, zipProblem } from "./xlsx-cells.ts";
import { SheetCollector, type SheetOptions, type XlsxReadInfo } from "./xlsx-sheets.ts";
import { openWorkbookReader } from "./xlsx-workbook-reader.ts";

export { cellValue } from "./xlsx-cells.ts";
export type { XlsxReadInfo } from "./xlsx-sheets.ts";

/** How to read a workbook. */
export interface XlsxOptions extends SheetOptions {
  /**
   * An existing folder for the worksheets set aside until the shared strings are read; the
   * caller removes it. Without it the read makes (and removes) one in the OS temp folder.
   */
  spoolDir?: string;
}

interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name?: string;
  state?: string;
}

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
  const sheets = new SheetCollector(o);
  const reader = await openWorkbookReader(input, READER_OPTIONS, spoolDir);
  // Errors thrown by our own code are bugs, not a bad file: only reader errors mean unreadable.
  let inEmitter = false;
  try {
    for await (const raw of reader) {
      const ws = raw as unknown as SheetReader;
      inEmitter = true;
      const read = sheets.startSheet(ws.name, ws.state);
      inEmitter = false;
      for await (const row of ws) {
        // A skipped sheet is drained: the zip entry must be consumed before the next one.
        if (!read) continue;
        const cells = rowCells(row);
        if (isBlank(cells)) continue;
        inEmitter = true;
        sheets.row(cells, row.number);
        inEmitter = false;
      }
      inEmitter = true;
      sheets.endSheet();
      inEmitter = false;
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
  return sheets.finish();
}
