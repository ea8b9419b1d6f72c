/*
 * How one field of a Rakuten answer is read, shared by the zod schemas and the hand-written
 * fast item parse so that both apply the same rules. Rakuten writes the same field as a number
 * in one API and as text in another ("itemPrice":"3980"), so both are accepted; a value of any
 * other type (an object, a list, a boolean, text that is not a number) is a broken answer, and
 * is refused rather than stored as null: a null would overwrite the item's last good value.
 * A number that cannot be what the field means (a price of -5 or 1.5, a review average of
 * 1e300, an integer beyond 2^53 that a double cannot hold exactly) is refused the same way.
 * The rules are listed in docs/pipelines/rakuten.md ("Normalization").
 */

/** Why a value was refused; `message` says what the field must be (the schema names the field). */
export class Refusal {
  constructor(readonly message: string) {}
}

/** True for a rule's refusal (as opposed to a value). */
export function isRefusal(v: unknown): v is Refusal {
  return v instanceof Refusal;
}

/** The refusals, one per rule broken (shared instances: a refusal carries no value). */
export const REFUSED = {
  number: new Refusal("must be a number or numeric text"),
  text: new Refusal("must be text or a number"),
  images: new Refusal("must be a list of image URLs"),
  tags: new Refusal("must be a list of positive integer tag ids"),
  unsafe: new Refusal("wrong value: beyond 2^53, a number that cannot be held exactly"),
  price: new Refusal("wrong value: a price must be a whole number of yen, 0 or more"),
  count: new Refusal("wrong value: a count must be a whole number, 0 or more"),
  average: new Refusal("wrong value: a review average must be between 0 and 5"),
} as const;

/** A decimal number as Rakuten writes it in text: "3980", "4.00", "-1", "1e3" (not "0x10"). */
const NUMERIC_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** A number, numeric text (trimmed), or null for null, absent and "". */
export function numberField(v: unknown): number | null | Refusal {
  if (v === undefined || v === null) return null;
  let n: number;
  if (typeof v === "number") n = v;
  else if (typeof v !== "string") return REFUSED.number;
  else {
    const t = v.trim();
    if (t === "") return null;
    n = NUMERIC_TEXT.test(t) ? Number(t) : Number.NaN;
  }
  // "1e400" is decimal text, but no number: it would be stored as Infinity.
  if (!Number.isFinite(n)) return REFUSED.number;
  // "9007199254740993" reads as …992: beyond 2^53 a double no longer holds every integer.
  return Math.abs(n) > Number.MAX_SAFE_INTEGER ? REFUSED.unsafe : n;
}

/** A price in yen: a whole number, 0 or more (null when absent). */
export function priceField(v: unknown): number | null | Refusal {
  return wholeNumber(numberField(v), REFUSED.price);
}

/** A count (reviews): a whole number, 0 or more (null when absent). */
export function countField(v: unknown): number | null | Refusal {
  return wholeNumber(numberField(v), REFUSED.count);
}

/** A review average: 0 to 5 (null when absent). */
export function averageField(v: unknown): number | null | Refusal {
  const n = numberField(v);
  if (n === REFUSED.unsafe) return REFUSED.average;
  if (n === null || isRefusal(n)) return n;
  return n >= 0 && n <= 5 ? n : REFUSED.average;
}

function wholeNumber(n: number | null | Refusal, refusal: Refusal): number | null | Refusal {
  if (n === null) return null;
  if (isRefusal(n)) return n === REFUSED.unsafe ? refusal : n;
  return Number.isInteger(n) && n >= 0 ? n : refusal;
}

/** Text as sent, a number as its decimal text, or null for null and absent. */
export function textField(v: unknown): string | null | Refusal {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  return typeof v === "number" ? String(v) : REFUSED.text;
}

/** Image URLs: formatVersion 2 strings or formatVersion 1 `{imageUrl}` objects; none for null. */
export function imageListField(v: unknown): string[] | Refusal {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return REFUSED.images;
  const out: string[] = [];
  for (const e of v) {
    if (typeof e === "string") out.push(e);
    else if (isPlainObject(e) && typeof e.imageUrl === "string") out.push(e.imageUrl);
    else return REFUSED.images;
  }
  return out;
}

/** Tag ids: positive integers, as numbers or digit text; none for null. */
export function tagIdsField(v: unknown): number[] | Refusal {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return REFUSED.tags;
  const out: number[] = [];
  for (const e of v) {
    const n = typeof e === "number" ? e : typeof e === "string" && /^\d+$/.test(e) ? Number(e) : 0;
    if (!Number.isSafeInteger(n) || n <= 0) return REFUSED.tags;
    out.push(n);
  }
  return out;
}

/** True for a JSON object (not null, not a list). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
