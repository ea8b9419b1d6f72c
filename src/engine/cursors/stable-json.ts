/** True for `{…}` objects (not arrays, dates or class instances with toJSON). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * JSON text with object keys sorted, so one value always has one spelling: SQLite compares
 * cursor values as text, and `{a, b}` must equal `{b, a}` there as it does in Postgres jsonb.
 */
export function stableJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!isPlainObject(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = v[k];
    return sorted;
  });
  if (text === undefined) throw new TypeError(`a cursor value must be JSON, got ${typeof value}`);
  return text;
}
