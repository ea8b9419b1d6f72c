/**
 * One column's value of a clean CSV record written as JSON straight from its bytes (the
 * byte-level emitter's part of a payload), or -1 when RowEmitter must have it.
 */

import {
  codePointAt,
  isAsciiSpace,
  isIsoDate,
  isUnicodeSpace,
  put,
  scaled,
  writeInt,
  writeJsonString,
  writeNull,
} from "../../publish/artifacts/utf8-bytes.ts";
import type { CompiledSchema } from "../../quality/emit/schema.ts";
import { type ByteRecord, ESCAPED } from "./csv-bytes.ts";

/**
 * True for the first byte of the UTF-8 form of every space isUnicodeSpace knows (U+00A0: C2;
 * U+1680: E1; U+2000–U+205F: E2; U+3000: E3; U+FEFF: EF): other text, Cyrillic say, is not
 * decoded at both ends of every value.
 */
const isSpaceLead = (c: number) =>
  c === 0xe2 || c === 0xc2 || c === 0xe3 || c === 0xe1 || c === 0xef;

/**
 * Writes one column's JSON value at `p` from the record's field `at` (-1: the column is absent
 * from the header); returns the new end, or -1 when the value needs RowEmitter (a missing
 * required value, an escaped or Unicode-padded string, a number or date off the fast path).
 */
export function writeValue(
  col: CompiledSchema["columns"][number],
  r: ByteRecord,
  at: number,
  s: Buffer,
  p: number,
): number {
  const b = r.buf;
  if (at < 0) return col.required ? -1 : writeNull(s, p);
  if (col.type === "string") {
    if (r.flags[at]! & ESCAPED) return -1;
    let a = r.starts[at]!;
    let e = r.ends[at]!;
    while (a < e && isAsciiSpace(b[a]!)) a++;
    while (e > a && isAsciiSpace(b[e - 1]!)) e--;
    if (a < e && isSpaceLead(b[a]!) && isUnicodeSpace(codePointAt(b, a))) return -1;
    if (a < e && b[e - 1]! >= 0x80) {
      let l = e - 1;
      while (l > a && (b[l]! & 0xc0) === 0x80) l--;
      if (isSpaceLead(b[l]!) && isUnicodeSpace(codePointAt(b, l))) return -1;
    }
    if (a === e) return col.required ? -1 : writeNull(s, p);
    return writeJsonString(b, a, e, s, p);
  }
  if (col.type === "integer" || col.type === "decimal") {
    const v = scaled(b, r.starts[at]!, r.ends[at]!, col.minorUnits);
    return v === undefined ? -1 : writeInt(s, p, v);
  }
  // date: empty or a plain ISO date stays on the fast path; other forms go to parseDate.
  const a = r.starts[at]!;
  const e = r.ends[at]!;
  if (a === e) return col.required ? -1 : writeNull(s, p);
  if (e - a !== 10 || !isIsoDate(b, a)) return -1;
  s[p++] = 0x22;
  p = put(b, a, e, s, p);
  s[p++] = 0x22;
  return p;
}
