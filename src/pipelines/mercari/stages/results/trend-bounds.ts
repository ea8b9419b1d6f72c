// No imports: the route schemas (loaded with the pipeline's definition) use this too.

/**
 * Milliseconds of a price-trend bound: a date (YYYY-MM-DD, its UTC midnight) or an ISO
 * timestamp; NaN when it names no real moment.
 */
export function trendBoundMs(text: string): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!day) return Number.NaN;
  const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
  // Date.parse rolls 2026-02-31 over to March 3rd: the calendar day must read back as given.
  const midnight = new Date(Date.UTC(year, month - 1, date));
  const real =
    midnight.getUTCFullYear() === year &&
    midnight.getUTCMonth() === month - 1 &&
    midnight.getUTCDate() === date;
  if (!real) return Number.NaN;
  return text.length === 10 ? midnight.getTime() : Date.parse(text);
}
