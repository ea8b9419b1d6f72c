/**
 * Emitter: turns each data row into a GOOD fact line or a BAD line. This is the hot
 * path, so the payload's canonical JSON is assembled directly from the pre-sorted columns
 * instead of building an object for the engine's general `canonicalJson`: for flat payloads of
 * strings, safe integers and nulls the bytes are identical (checked by a property test against
 * canonicalJson), at a fifth of the cost. row_id = SHA-256 of those bytes.
 */
import { hash } from "node:crypto";
import type { ReasonCode } from "../reason-codes/reason-code.ts";
import type { CompiledSchema, HeaderMap } from "./schema.ts";
import {
  CellErrorValue,
  type CellValue,
  isProblem,
  type Parsed,
  parseDate,
  parseDecimal,
  parseInteger,
  parseString,
} from "./value-parsers.ts";

/** Row counts of one category (or of the whole file). */
export interface Counts {
  total: number;
  good: number;
  bad: number;
}

/** Receives NDJSON lines (each ending in a newline). */
export interface LineWriter {
  writeLine(line: string): void;
}

/** Receives one key-index entry per fact. */
export interface KeyWriter {
  add(rowId: string, rowNumber: number, catJson: string, keyJson: string): void;
}

/** Where emitted lines go and how to label them. */
export interface EmitterOptions {
  runId: string;
  supplier: string;
  /** Facts carry category_key (multi-category). */
  multiCategory: boolean;
  /** Check text for unpaired surrogates (not needed after the strict UTF-8 decoder). */
  checkSurrogates: boolean;
  facts: LineWriter;
  bad: LineWriter;
  keys: KeyWriter;
}

const MAX_SHOWN_VALUE = 200;

/** Emits rows of one file; counts everything stats.json reports. */
export class RowEmitter {
  totals: Counts = { total: 0, good: 0, bad: 0 };
  byCategory = new Map<string, Counts>();
  byReason = new Map<ReasonCode, number>();
  readonly #schema: CompiledSchema;
  #o: EmitterOptions;
  readonly #head: string;
  readonly #catJson = new Map<string, string>();
  #header: HeaderMap | undefined;
  #category: string | undefined;
  #strictWidth = false;

  constructor(schema: CompiledSchema, options: EmitterOptions) {
    this.#schema = schema;
    this.#o = options;
    this.#head = `{"run_id":${JSON.stringify(options.runId)},"supplier":${JSON.stringify(options.supplier)},`;
  }

  /** Starts a header's rows; category is the sheet's category_key (sheets) or undefined. */
  begin(header: HeaderMap, category: string | undefined, strictWidth: boolean): void {
    this.#header = header;
    this.#category = category;
    this.#strictWidth = strictWidth;
    if (category !== undefined) this.#counts(category);
  }

  /** Processes one data row; `malformed` marks a CSV quoting error. */
  row(cells: readonly CellValue[], rowNumber: number, malformed = false): void {
    const header = this.#header!;
    const schema = this.#schema;
    let category = this.#category;
    if (header.category >= 0) {
      const c = parseString(cells[header.category], this.#o.checkSurrogates);
      if (c === null || isProblem(c)) {
        this.#bad(
          undefined,
          rowNumber,
          "CATEGORY_MISSING",
          schema.categoryLabel,
          cells[header.category],
        );
        return;
      }
      category = c;
    }
    if (malformed) {
      this.#bad(category, rowNumber, "MALFORMED_ROW");
      return;
    }
    if (this.#strictWidth && cells.length !== header.width) {
      this.#bad(category, rowNumber, "COLUMN_COUNT_MISMATCH", undefined, cells.length);
      return;
    }
    const columns = schema.columns;
    const positions = header.positions;
    let payload = "";
    let keyJson = "";
    for (let i = 0; i < columns.length; i++) {
      const col = columns[i]!;
      const pos = positions[i]!;
      const raw = pos >= 0 ? cells[pos] : null;
      let v: Parsed;
      switch (col.type) {
        case "string":
          v = parseString(raw, this.#o.checkSurrogates);
          break;
        case "integer":
          v = parseInteger(raw);
          break;
        case "decimal":
          v = parseDecimal(raw, col.minorUnits);
          break;
        default:
          v = parseDate(raw);
      }
      let json: string;
      if (v === null) {
        if (col.required) {
          this.#bad(category, rowNumber, "REQUIRED_VALUE_MISSING", col.name, raw);
          return;
        }
        json = "null";
      } else if (typeof v === "string") {
        json = JSON.stringify(v);
      } else if (typeof v === "number") {
        json = `${v}`;
      } else {
        this.#bad(category, rowNumber, v.reason, col.name, raw);
        return;
      }
      payload += schema.prefixes[i] + json;
      if (i === schema.keyIndex) keyJson = json;
    }
    payload += "}";
    const rowId = hash("sha256", payload, "hex");
    const catJson = category === undefined ? "" : this.#categoryJson(category);
    this.#o.facts.writeLine(
      `${this.#head}${catJson === "" ? "" : `"category_key":${catJson},`}"row_id":"${rowId}","row_number":${rowNumber},"payload":${payload}}\n`,
    );
    this.#o.keys.add(rowId, rowNumber, catJson, keyJson);
    this.countGood(category);
  }

  /** Sends further bad lines to another sink (bad.ndjson reopened for appending). */
  attachBad(bad: LineWriter): void {
    this.#o = { ...this.#o, bad };
  }

  /** Counts a good row written by the byte-level fast path. */
  countGood(category: string | undefined): void {
    this.totals.total++;
    this.totals.good++;
    if (category !== undefined) {
      const c = this.#counts(category);
      c.total++;
      c.good++;
    }
  }

  /** Adds counts gathered elsewhere (a worker's share of the file). */
  merge(
    totals: Counts,
    byCategory: Iterable<[string, Counts]>,
    byReason: Iterable<[ReasonCode, number]>,
  ): void {
    this.totals.total += totals.total;
    this.totals.good += totals.good;
    this.totals.bad += totals.bad;
    for (const [cat, c] of byCategory) {
      const mine = this.#counts(cat);
      mine.total += c.total;
      mine.good += c.good;
      mine.bad += c.bad;
    }
    for (const [code, n] of byReason) this.byReason.set(code, (this.byReason.get(code) ?? 0) + n);
  }

  /** Returns the counts so far and starts from zero (a worker reports per batch). */
  takeCounts(): {
    totals: Counts;
    byCategory: Array<[string, Counts]>;
    byReason: Array<[ReasonCode, number]>;
  } {
    const out = {
      totals: this.totals,
      byCategory: [...this.byCategory.entries()],
      byReason: [...this.byReason.entries()],
    };
    this.totals = { total: 0, good: 0, bad: 0 };
    this.byCategory = new Map();
    this.byReason = new Map();
    return out;
  }

  /** Records a bad row found after emission (a duplicate key): moves it from good to bad. */
  reclassify(
    category: string | undefined,
    rowNumber: number,
    reason: ReasonCode,
    key: unknown,
  ): void {
    this.totals.good--;
    this.totals.total--;
    if (category !== undefined) {
      const c = this.#counts(category);
      c.good--;
      c.total--;
    }
    this.#bad(category, rowNumber, reason, undefined, undefined, key);
  }

  #bad(
    category: string | undefined,
    rowNumber: number,
    reason: ReasonCode,
    column?: string,
    raw?: CellValue | number,
    key?: unknown,
  ): void {
    let line = this.#head;
    if (this.#o.multiCategory && category !== undefined) {
      line += `"category_key":${this.#categoryJson(category)},`;
    }
    line += `"row_number":${rowNumber},"reason_code":"${reason}"`;
    if (column !== undefined) line += `,"column":${JSON.stringify(column)}`;
    if (raw !== undefined) line += `,"value":${JSON.stringify(shown(raw))}`;
    if (key !== undefined) line += `,"key":${JSON.stringify(key)}`;
    this.#o.bad.writeLine(`${line}}\n`);
    this.totals.total++;
    this.totals.bad++;
    if (category !== undefined) {
      const c = this.#counts(category);
      c.total++;
      c.bad++;
    }
    this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + 1);
  }

  #categoryJson(category: string): string {
    let json = this.#catJson.get(category);
    if (json === undefined) {
      json = JSON.stringify(category);
      this.#catJson.set(detach(category), json);
    }
    return json;
  }

  #counts(category: string): Counts {
    let c = this.byCategory.get(category);
    if (!c) {
      c = { total: 0, good: 0, bad: 0 };
      this.byCategory.set(detach(category), c);
    }
    return c;
  }
}

/**
 * A copy of a string that does not pin its source: a field sliced from a decoded chunk keeps
 * the whole chunk (megabytes) alive while it is referenced, e.g. as a map key.
 */
function detach(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** A raw value as shown in bad.ndjson: text truncated, dates as ISO, errors as their code. */
function shown(raw: CellValue | number): string | number | boolean | null {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof CellErrorValue) return raw.code;
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? String(raw) : raw.toISOString();
  if (typeof raw === "string" && raw.length > MAX_SHOWN_VALUE) {
    return `${raw.slice(0, MAX_SHOWN_VALUE)}…`;
  }
  return raw;
}
