/*
 * How one field of a Rakuten answer is read, shared by the zod schemas and the hand-written
 * fast item parse so that both apply the same rules. Rakuten writes the same field as a number
 * in one API and as text in another ("itemPrice":"3980"), so both are accepted; a value of any
 * other type (an object, a list, a boolean, text that is not a number) is a broken answer, and
 * is refused rather than stored as null: a null would overwrite the item's last good value.
 */

/** Returned by a rule for a value of the wrong type (EXPECTED says what the rule wanted). */
export const WRONG = Symbol("wrong type");

/** A decimal number as Rakuten writes it in text: "3980", "4.00", "-1", "1e3" (not "0x10"). */
const NUMERIC_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** A number, numeric text (trimmed), or null for null, absent and "". */
export function numberField(v: unknown): number | null | typeof WRONG {
  if (v === undefined || v === null) return null;
  if (typeof v === "number") return Number.isFinite(v) ? v : WRONG;
  if (typeof v !== "string") return WRONG;
  const t = v.trim();
  if (t === "") return null;
  // "1e400" is decimal text, but no number: it would be stored as Infinity.
  const n = NUMERIC_TEXT.test(t) ? Number(t) : Number.NaN;
  return Number.isFinite(n) ? n : WRONG;
}

/** Text as sent, a number as its decimal text, or null for null and absent. */
export function textField(v: unknown): string | null | typeof WRONG {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  return typeof v === "number" ? String(v) : WRONG;
}

/** Image URLs: formatVersion 2 strings or formatVersion 1 `{imageUrl}` objects; none for null. */
export function imageListField(v: unknown): string[] | typeof WRONG {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return WRONG;
  const out: string[] = [];
  for (const e of v) {
    if (typeof e === "string") out.push(e);
    else if (isPlainObject(e) && typeof e.imageUrl === "string") out.push(e.imageUrl);
    else return WRONG;
  }
  return out;
}

/** Tag ids: positive integers, as numbers or digit text; none for null. */
export function tagIdsField(v: unknown): number[] | typeof WRONG {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return WRONG;
  const out: number[] = [];
  for (const e of v) {
    const n = typeof e === "number" ? e : typeof e === "string" && /^\d+$/.test(e) ? Number(e) : 0;
    if (!Number.isSafeInteger(n) || n <= 0) return WRONG;
    out.push(n);
  }
  return out;
}

/** What each rule expects, for the error naming the field. */
export const EXPECTED = {
  number: "must be a number or numeric text",
  text: "must be text or a number",
  images: "must be a list of image URLs",
  tags: "must be a list of positive integer tag ids",
} as const;

/** True for a JSON object (not null, not a list). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
