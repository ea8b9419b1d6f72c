/**
 * Splits `items` into consecutive batches of at most `size` (the last may be shorter), for
 * multi-row statements that must stay inside both dialects' bound-parameter and expression
 * limits. A size below 1 is a programming error.
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`chunk size ${size} is not a whole number ≥ 1`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
