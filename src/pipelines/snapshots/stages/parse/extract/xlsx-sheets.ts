/**
 * What a workbook's sheets mean for a run, fed sheet by sheet and row by row by either read
 * (in-thread, or from the worker's row batches): which sheets are read or skipped, each
 * sheet's header (its first non-blank row) and category_key, the rows to the emitter, and
 * the gates on the whole workbook at the end.
 */
import type { SupplierConfig } from "../../intake/config/supplier-config.ts";
import type { RowEmitter } from "../../quality/emit/row-emitter.ts";
import { type CompiledSchema, GateFailure, mapHeader } from "../../quality/emit/schema.ts";
import type { CellValue } from "../../quality/emit/value-parsers.ts";

/** Which sheets were read, skipped or empty. */
export interface XlsxReadInfo {
  sheets: Array<{ name: string; category_key: string | null; rows: number }>;
  skipped_sheets: Array<{ name: string; why: "hidden" | "not configured" | "empty" | "not first" }>;
}

type SkipWhy = XlsxReadInfo["skipped_sheets"][number]["why"];

/** What the collector needs from the read's options. */
export interface SheetOptions {
  categories: SupplierConfig["categories"];
  schema: CompiledSchema;
  emitter: RowEmitter;
  signal?: AbortSignal;
  /** Called after each sheet's rows (test hooks). */
  onSheet?: (name: string) => void;
}

/**
 * A sheet's category_key, or why it is skipped (`readOne`: an earlier sheet had a header);
 * `unexpected` is the gate's SHEET_UNEXPECTED. Pure, so the worker can leave skipped sheets
 * unconverted while the collector decides the same.
 */
export function planSheet(
  categories: SupplierConfig["categories"],
  name: string,
  state: string | undefined,
  readOne: boolean,
): { category?: string; skip?: SkipWhy; unexpected?: true } {
  const bySheet = categories?.from === "sheet" ? categories : undefined;
  if (state === "hidden" || state === "veryHidden") return { skip: "hidden" };
  if (bySheet?.sheets) {
    const category = bySheet.sheets[name];
    if (category !== undefined) return { category };
    return bySheet.unknown_sheets === "fail" ? { unexpected: true } : { skip: "not configured" };
  }
  if (bySheet) return { category: name };
  return readOne ? { skip: "not first" } : {};
}

/** Feeds the emitter and collects XlsxReadInfo; throws the gates. */
export class SheetCollector {
  readonly info: XlsxReadInfo = { sheets: [], skipped_sheets: [] };
  readonly #o: SheetOptions;
  readonly #wanted: Set<string>;
  #worksheets = 0;
  #readOne = false;
  #name = "";
  #category: string | undefined;
  #skip: SkipWhy | undefined;
  #header = false;
  #rows = 0;

  constructor(o: SheetOptions) {
    this.#o = o;
    const c = o.categories;
    this.#wanted = new Set(Object.keys((c?.from === "sheet" && c.sheets) || {}));
  }

  /** Starts the next worksheet; false when its rows are to be left unread. */
  startSheet(name: string | undefined, state: string | undefined): boolean {
    this.#worksheets++;
    this.#name = name ?? `Sheet${this.#worksheets}`;
    this.#header = false;
    this.#rows = 0;
    const plan = planSheet(this.#o.categories, this.#name, state, this.#readOne);
    if (plan.unexpected) {
      throw new GateFailure(
        "SHEET_UNEXPECTED",
        `sheet ${JSON.stringify(this.#name)} is not in categories.sheets`,
      );
    }
    this.#category = plan.category;
    this.#skip = plan.skip;
    return this.#skip === undefined;
  }

  /** A non-blank row of a sheet being read: its header, then its data rows. */
  row(cells: readonly CellValue[], rowNumber: number): void {
    if (this.#header) {
      this.#o.emitter.row(cells, rowNumber);
      this.#rows++;
      return;
    }
    this.#header = true;
    const where = `sheet ${JSON.stringify(this.#name)}`;
    this.#o.emitter.begin(mapHeader(this.#o.schema, cells, where), this.#category, false);
  }

  /** Ends the current worksheet. */
  endSheet(): void {
    const name = this.#name;
    if (this.#skip) {
      this.info.skipped_sheets.push({ name, why: this.#skip });
      return;
    }
    this.#o.signal?.throwIfAborted();
    if (!this.#header) {
      this.info.skipped_sheets.push({ name, why: "empty" });
      return;
    }
    this.#readOne = true;
    this.#wanted.delete(name);
    this.info.sheets.push({ name, category_key: this.#category ?? null, rows: this.#rows });
    this.#o.onSheet?.(name);
  }

  /** The workbook's gates, once every worksheet was read. */
  finish(): XlsxReadInfo {
    if (this.#worksheets === 0)
      throw new GateFailure("FORMAT_UNRECOGNIZED", "a ZIP file without worksheets");
    if (this.#wanted.size > 0) {
      const missing = [...this.#wanted].join(", ");
      throw new GateFailure("SHEET_MISSING", `missing or empty sheet(s): ${missing}`);
    }
    if (!this.#readOne) throw new GateFailure("HEADER_MISMATCH", "no sheet has a header row");
    return this.info;
  }
}
