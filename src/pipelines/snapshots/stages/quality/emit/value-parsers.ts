/**
 * Cell value → payload value, per column type. Parsers return the value (string, safe integer
 * or null for empty) or a RowProblem; problems are shared frozen objects so the hot path
 * allocates nothing on success or failure.
 */
import { findLoneSurrogate } from "tidemark/kit";
import type { ReasonCode } from "../reason-codes/reason-code.ts";

/** An XLSX cell holding a spreadsheet error such as `#N/A`. */
export class CellErrorValue {
  constructor(readonly code: string) {}
}

/** A raw cell: CSV gives strings, XLSX also numbers, booleans, dates and errors. */
export type CellValue = string | number | boolean | Date | CellErrorValue | null | undefined;

/** Why a value was refused. */
export interface RowProblem {
  readonly reason: ReasonCode;
}

/** A parsed value: string, safe integer, null (empty) or a problem. */
export type Parsed = string | number | null | RowProblem;

const problem = (reason: ReasonCode): RowProblem => Object.freeze({ reason });
const INVALID_INTEGER = problem("INVALID_INTEGER");
const INVALID_DECIMAL = problem("INVALID_DECIMAL");
const PRECISION = problem("DECIMAL_PRECISION_EXCEEDED");
const OUT_OF_RANGE = problem("NUMBER_OUT_OF_RANGE");
const INVALID_DATE = problem("INVALID_DATE");
const INVALID_TEXT = problem("INVALID_TEXT");
const CELL_ERROR = problem("CELL_ERROR");

/** True for a RowProblem (parsed values are never objects otherwise). */
export function isProblem(v: Parsed): v is RowProblem {
  return typeof v === "object" && v !== null;
}

const SURROGATE = /[\uD800-\uDFFF]/;
// Space, no-break space and narrow no-break space: digit group separators in exports.
const GROUP_SPACES = /[ \u00a0\u202f]/g;

/**
 * Text: trimmed; empty → null; unpaired surrogates (no UTF-8 form) → INVALID_TEXT. The check
 * can be skipped for text from the strict UTF-8 decoder, which never produces them.
 */
export function parseString(raw: CellValue, checkSurrogates = true): string | null | RowProblem {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== "string") {
    if (raw instanceof CellErrorValue) return CELL_ERROR;
    if (raw instanceof Date) return isoDate(raw);
    return String(raw);
  }
  const s = raw.trim();
  if (s.length === 0) return null;
  if (checkSurrogates && SURROGATE.test(s) && findLoneSurrogate(s) >= 0) return INVALID_TEXT;
  return s;
}

/**
 * `[+-]digits[(.|,)digits]` scaled to `units` fraction digits, without allocating; undefined
 * when the text needs the general path (spaces, too many digits, extra fraction digits, junk).
 */
function fastScaled(s: string, units: number): number | undefined {
  const len = s.length;
  let i = 0;
  let negative = false;
  let c = s.charCodeAt(0);
  if (c === 45 || c === 43) {
    negative = c === 45;
    i = 1;
  }
  let v = 0;
  let digits = 0;
  for (; i < len; i++) {
    c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    digits++;
  }
  let frac = 0;
  if (i < len && (c === 46 || c === 44)) {
    for (i++; i < len; i++) {
      c = s.charCodeAt(i);
      if (c < 48 || c > 57) return undefined;
      if (frac === units) return undefined;
      v = v * 10 + (c - 48);
      frac++;
      digits++;
    }
  }
  if (i !== len || digits === 0) return undefined;
  for (; frac < units; frac++) v *= 10;
  // v only grows, so if the end value is safe every step was exact.
  if (v > Number.MAX_SAFE_INTEGER) return undefined;
  return negative && v !== 0 ? -v : v;
}

/** Whole numbers: `5`, `-5`, `1 000`, `5.00`; numbers from XLSX must be safe integers. */
export function parseInteger(raw: CellValue): Parsed {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "number") {
    if (!Number.isFinite(raw) || !Number.isInteger(raw)) return INVALID_INTEGER;
    return Number.isSafeInteger(raw) ? raw : OUT_OF_RANGE;
  }
  if (typeof raw !== "string") return raw instanceof CellErrorValue ? CELL_ERROR : INVALID_INTEGER;
  const fast = fastScaled(raw, 0);
  if (fast !== undefined) return fast;
  const m = decimalParts(raw);
  if (m === null) return INVALID_INTEGER;
  if (m === undefined) return null;
  if (!/^0*$/.test(m.frac)) return INVALID_INTEGER;
  return toSafe(m.negative, m.int, "", 0);
}

/** Decimals as integer minor units: `12.5` with 2 → 1250; never rounds a written value. */
export function parseDecimal(raw: CellValue, minorUnits: number): Parsed {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "number") return decimalFromNumber(raw, minorUnits);
  if (typeof raw !== "string") return raw instanceof CellErrorValue ? CELL_ERROR : INVALID_DECIMAL;
  const fast = fastScaled(raw, minorUnits);
  if (fast !== undefined) return fast;
  const m = decimalParts(raw);
  if (m === null) return INVALID_DECIMAL;
  if (m === undefined) return null;
  if (m.frac.length > minorUnits && !/^0*$/.test(m.frac.slice(minorUnits))) return PRECISION;
  return toSafe(m.negative, m.int, m.frac.slice(0, minorUnits), minorUnits);
}

/** Calendar dates as `YYYY-MM-DD`: ISO, `DD.MM.YYYY`, XLSX dates and Excel serial numbers. */
export function parseDate(raw: CellValue): Parsed {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? INVALID_DATE : isoDate(raw);
  if (typeof raw === "number") {
    // Excel's 1900 system: serial 1 = 1900-01-01, with its fictitious 1900-02-29 (serial 60).
    if (!Number.isInteger(raw) || raw < 61 || raw > 2958465) return INVALID_DATE;
    return isoDate(new Date(Date.UTC(1899, 11, 30) + raw * 86_400_000));
  }
  if (typeof raw !== "string") return raw instanceof CellErrorValue ? CELL_ERROR : INVALID_DATE;
  const s = raw.trim();
  if (s.length === 0) return null;
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]00:00(?::00(?:\.0+)?)?Z?)?$/.exec(s);
  let y: number;
  let mo: number;
  let d: number;
  if (m) {
    y = Number(m[1]);
    mo = Number(m[2]);
    d = Number(m[3]);
  } else {
    m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
    if (!m) return INVALID_DATE;
    d = Number(m[1]);
    mo = Number(m[2]);
    y = Number(m[3]);
  }
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    return INVALID_DATE;
  }
  return isoDate(date);
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** sign, integer digits, fraction digits; undefined when blank; null when not a number. */
function decimalParts(
  raw: string,
): { negative: boolean; int: string; frac: string } | null | undefined {
  let s = raw.trim();
  if (s.length === 0) return undefined;
  if (s.includes(" ") || s.includes("\u00a0") || s.includes("\u202f")) {
    s = s.replace(GROUP_SPACES, "");
  }
  const m = /^([+-]?)(\d*)(?:[.,](\d*))?$/.exec(s);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  return { negative: m[1] === "-", int: m[2] || "0", frac: m[3] ?? "" };
}

function toSafe(negative: boolean, int: string, frac: string, units: number): Parsed {
  const digits = (int + frac.padEnd(units, "0")).replace(/^0+(?=\d)/, "");
  if (digits.length > 16) return OUT_OF_RANGE;
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) return OUT_OF_RANGE;
  return negative && n !== 0 ? -n : n;
}

/** Powers of ten for the minor units of the number fast path (index: units). */
const SCALE = [1, 10, 100, 1000, 10000, 100000, 1000000];

function decimalFromNumber(x: number, units: number): Parsed {
  if (!Number.isFinite(x)) return INVALID_DECIMAL;
  // Fast path, the same result without text: x is exactly v / 10^units for an integer v, and
  // doubles near x are far closer together than 10^-units (|v| < 2^50), so the shortest text
  // of x is that decimal.
  const f = SCALE[units];
  if (f !== undefined) {
    const v = Math.round(x * f);
    if (Math.abs(v) < 2 ** 50 && v / f === x) return v === 0 ? 0 : v;
  }
  // The shortest round-trip text is what the spreadsheet showed (19.99, not 19.989999…).
  const text = String(x);
  if (!text.includes("e")) {
    const parsed = parseDecimal(text, units);
    if (parsed !== PRECISION) return parsed;
  }
  // A float artefact of a formula (0.1+0.2): accept it when it is the rounded value to within
  // a few ulps; a genuinely finer value (0.125 for cents) stays a precision error.
  const rounded = Number(x.toFixed(Math.min(units, 20)));
  if (Math.abs(x - rounded) <= Math.abs(x) * 8 * Number.EPSILON) {
    return parseDecimal(rounded.toFixed(units), units);
  }
  return Math.abs(x) >= 1e21 ? OUT_OF_RANGE : PRECISION;
}
