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
