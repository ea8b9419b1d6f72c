/** Small formatters for the dashboard's tables. */

/** "3 s", "5 min", "2 h", "4 d": a rough, short duration. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** "5 min ago" / "in 2 h" of an ISO timestamp relative to now; "—" when null. */
export function relative(iso: string | null | undefined, now: Date): string {
  if (!iso) return "—";
  const diff = Date.parse(iso) - now.getTime();
  return diff >= 0 ? `in ${shortDuration(diff)}` : `${shortDuration(-diff)} ago`;
}

/** A run's duration, or how long it has been going; milliseconds under a second (not "0 s"). */
export function runDuration(startedAt: string, finishedAt: string | null, now: Date): string {
  const end = finishedAt ? Date.parse(finishedAt) : now.getTime();
  const ms = Math.max(0, end - Date.parse(startedAt));
  return ms < 1000 ? `${ms} ms` : shortDuration(ms);
}

/** Pretty JSON for a <pre>. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

// Kept here for callers that import it with the other formatters.
export { safeNext } from "./safe-next.ts";

/** Every time the dashboard shows (tables and charts) is in this zone. */
export const TIME_ZONE_LABEL = "UTC";

/** "2026-01-15 09:30:12" of an ISO timestamp (UTC, as every table and chart shows); "—" when null. */
export function utcTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 19).replace("T", " ");
}

/** An error's first line, cut to `max` characters (by code point) with "…". */
export function errorExcerpt(error: string, max = 160): string {
  const first = error.split("\n", 1)[0]!;
  const chars = Array.from(first);
  const cut = chars.length > max || first !== error;
  return cut ? `${chars.slice(0, max).join("")}…` : first;
}
