import { UsageError } from "tidemark";

/** A positive integer argument or option, or UsageError (exit 2) naming it and the value. */
export function parseId(value: unknown, what: string): number {
  const text = String(value ?? "");
  if (!/^[1-9]\d{0,15}$/.test(text)) {
    throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** A non-negative integer option (yen, counts), or UsageError naming it. */
export function parseCount(value: unknown, what: string): number {
  const text = String(value ?? "");
  if (!/^\d{1,15}$/.test(text)) {
    throw new UsageError(`${what} must be a whole number, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** An option that may be `none` (clears the field), a whole number, or absent. */
export function parseClearable(
  value: unknown,
  what: string,
  parse: (v: unknown, what: string) => number,
): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  return parse(value, what);
}
