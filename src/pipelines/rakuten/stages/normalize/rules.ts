/**
 * The normalization rules shared by every entity: meta keys excluded, text trimmed, empty text
 * → null, keys in a stable order. Canonical JSON sorts keys again when hashing; sorting here as
 * well keeps the documents handed to appliers and printed by `rakuten raw` in the same order.
 */

/** Keys the ETL or the HTTP layer adds about a call: never part of a document or its hash. */
export const EXCLUDED_META_KEYS: readonly string[] = [
  "fetched_at",
  "requested_at",
  "request_id",
  "response_headers",
  "http_status",
  "api_version",
];

const EXCLUDED = new Set(EXCLUDED_META_KEYS);

/** A shallow copy without the meta keys. */
export function withoutMeta<T extends object>(raw: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!EXCLUDED.has(k)) out[k] = v;
  return out as T;
}

/** Trimmed text; empty (after trimming) or absent → null. */
export function text(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const t = value.trim();
  return t === "" ? null : t;
}

/** Trimmed text that must be present (ids such as `itemCode`). */
export function requiredText(value: string | null | undefined, name: string): string {
  const t = text(value);
  if (t === null) throw new Error(`${name} is empty`);
  return t;
}

/** A number or null (NaN and infinities are null). */
export function num(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** URLs trimmed, empty ones dropped, sorted by code point (their order means nothing). */
export function sortedUrls(urls: readonly string[] | null | undefined): string[] {
  const out: string[] = [];
  for (const u of urls ?? []) {
    const t = u.trim();
    if (t !== "") out.push(t);
  }
  return out.sort(compareText);
}

/** Integer ids ascending, duplicates kept once. */
export function sortedIds(ids: readonly number[] | null | undefined): number[] {
  return [...new Set(ids ?? [])].sort((a, b) => a - b);
}

/** Code-point order (Python's default string order), not locale order. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The same object with its keys in sorted order (shallow; nested objects are built sorted). */
export function sortKeys<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort(compareText)) {
    out[k] = (value as Record<string, unknown>)[k];
  }
  return out as T;
}
