/**
 * Rows sent from the XLSX worker to the thread that emits them, many at a time, in a form
 * that costs next to nothing to post: a type tag per cell, numbers (and dates, as epoch ms) in
 * a Float64Array, the text of every string cell in one string with each length in an
 * Int32Array — no per-value work for the structured clone, the arrays are transferred.
 */
import { CellErrorValue, type CellValue } from "../../quality/emit/value-parsers.ts";
import { cellValue } from "./xlsx-cells.ts";

/** Non-blank rows of one sheet, in order. */
export interface RowBatch {
  tags: Uint8Array;
  nums: Float64Array;
  lens: Int32Array;
  text: string;
  /** Per row: its number of cells, its row number. */
  widths: Int32Array;
  numbers: Int32Array;
}

const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;
const DATE = 5;
const ERROR = 6;

const isEmpty = (c: CellValue) =>
  c === null || c === undefined || (typeof c === "string" && c.trim() === "");

/** Growable typed array. */
function grown<T extends Uint8Array | Float64Array | Int32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Collects rows into a batch (worker side). */
export class RowBatchBuilder {
  rows = 0;
  #cells = 0;
  #strings = 0;
  #tags = new Uint8Array(8192);
  #nums = new Float64Array(8192);
  #lens = new Int32Array(8192);
  #text: string[] = [];
  #widths = new Int32Array(2048);
  #numbers = new Int32Array(2048);

  /** Adds an exceljs row (its 1-based `values`) unless every cell is blank. */
  add(values: readonly unknown[], rowNumber: number): void {
    const start = this.#cells;
    const strings = this.#strings;
    this.#tags = grown(this.#tags, start + values.length);
    this.#nums = grown(this.#nums, start + values.length);
    this.#lens = grown(this.#lens, strings + values.length);
    let blank = true;
    for (let i = 1; i < values.length; i++) {
      const c = cellValue(values[i]);
      if (blank && !isEmpty(c)) blank = false;
      this.#put(c);
    }
    if (blank) {
      this.#cells = start;
      this.#strings = strings;
      this.#text.length = strings;
      return;
    }
    this.#widths = grown(this.#widths, this.rows + 1);
    this.#numbers = grown(this.#numbers, this.rows + 1);
    this.#widths[this.rows] = this.#cells - start;
    this.#numbers[this.rows] = rowNumber;
    this.rows++;
  }

  #put(c: CellValue): void {
    const at = this.#cells++;
    if (c === null || c === undefined) this.#tags[at] = NULL;
    else if (typeof c === "string") this.#string(at, STRING, c);
    else if (typeof c === "number") {
      this.#tags[at] = NUMBER;
      this.#nums[at] = c;
    } else if (typeof c === "boolean") this.#tags[at] = c ? TRUE : FALSE;
    else if (c instanceof Date) {
      this.#tags[at] = DATE;
      this.#nums[at] = c.getTime();
    } else this.#string(at, ERROR, c.code);
  }

  #string(at: number, tag: number, s: string): void {
    this.#tags[at] = tag;
    this.#lens[this.#strings++] = s.length;
    this.#text.push(s);
  }

  /** The batch so far, and the buffers to transfer with it; the builder starts anew. */
  take(): { batch: RowBatch; transfer: ArrayBuffer[] } {
    const batch: RowBatch = {
      tags: this.#tags.slice(0, this.#cells),
      nums: this.#nums.slice(0, this.#cells),
      lens: this.#lens.slice(0, this.#strings),
      text: this.#text.join(""),
      widths: this.#widths.slice(0, this.rows),
      numbers: this.#numbers.slice(0, this.rows),
    };
    this.rows = 0;
    this.#cells = 0;
    this.#strings = 0;
    this.#text = [];
    const transfer = [batch.tags, batch.nums, batch.lens, batch.widths, batch.numbers].map(
      (a) => a.buffer as ArrayBuffer,
    );
    return { batch, transfer };
  }
}

/** Calls `each` with every row of a received batch (main side). */
export function forEachRow(
  b: RowBatch,
  each: (cells: CellValue[], rowNumber: number) => void,
): void {
  const { tags, nums, lens, text } = b;
  let cell = 0;
  let str = 0;
  let pos = 0;
  for (let r = 0; r < b.widths.length; r++) {
    const width = b.widths[r]!;
    const cells: CellValue[] = new Array(width);
    for (let i = 0; i < width; i++, cell++) {
      const tag = tags[cell];
      if (tag === STRING || tag === ERROR) {
        const end = pos + lens[str++]!;
        const s = text.slice(pos, end);
        pos = end;
        cells[i] = tag === STRING ? s : new CellErrorValue(s);
      } else if (tag === NUMBER) cells[i] = nums[cell]!;
      else if (tag === DATE) cells[i] = new Date(nums[cell]!);
      else cells[i] = tag === NULL ? null : tag === TRUE;
    }
    each(cells, b.numbers[r]!);
  }
}
