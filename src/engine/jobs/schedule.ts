import { Cron } from "croner";
import { UsageError } from "../errors.ts";

/** Throws a UsageError unless tz is an IANA time zone name this Node knows. */
export function validateTimezone(tz: string): void {
  // The usual zone needs no check: building a formatter loads ICU's zone data (~10 ms a start).
  if (tz === "UTC") return;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
  } catch {
    throw new UsageError(`timezone ${JSON.stringify(tz)}: not a known IANA time zone`);
  }
}

/** Each field's highest value, for a 6- or 7-part pattern (seconds first; years last). */
const FIELD_MAX = [59, 59, 23, 31, 12, 7, 9999];

/**
 * Writes a stepping with a numeric start (`2/5`, minutes 2, 7, 12, …: the form Ghost's
 * `${s} ${m}/5 * * * *` uses) as the range croner understands (`2-59/5`), so an out-of-range
 * start is still refused.
 */
function expandNumericSteps(expr: string): string {
  const parts = expr.trim().split(/\s+/);
  const max = parts.length === 5 ? FIELD_MAX.slice(1) : FIELD_MAX;
  return parts
    .map((part, i) =>
      part
        .split(",")
        .map((item) => (/^\d+\/\d+$/.test(item) ? item.replace("/", `-${max[i]}/`) : item))
        .join(","),
    )
    .join(" ");
}

/** A paused croner instance, for date arithmetic only (it never runs anything). */
export function pausedCron(expr: string, timezone: string): Cron {
  return new Cron(expandNumericSteps(expr), { timezone, paused: true });
}

function cron(expr: string, timezone: string): Cron {
  const fields = expr.trim().split(/\s+/).filter(Boolean).length;
  if (fields !== 5 && fields !== 6) {
    throw new UsageError(
      `schedule ${JSON.stringify(expr)}: expected 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), got ${fields}`,
    );
  }
  try {
    return pausedCron(expr, timezone);
  } catch (err) {
    throw new UsageError(`schedule ${JSON.stringify(expr)}: ${(err as Error).message}`);
  }
}

/** Throws a UsageError naming the expression unless it is a valid cron schedule. */
export function validateSchedule(expr: string, timezone: string): void {
  validateTimezone(timezone);
  cron(expr, timezone);
}

/** The first occurrence strictly after `after`, or undefined if the schedule never fires again. */
export function nextOccurrence(expr: string, timezone: string, after: Date): Date | undefined {
  return cron(expr, timezone).nextRun(after) ?? undefined;
}

/**
 * True when the schedule has an occurrence in (since, now]: the job is due.
 * `since` is the job's last run start, or its creation time.
 */
export function isDue(expr: string, timezone: string, since: Date, now: Date): boolean {
  const next = nextOccurrence(expr, timezone, since);
  return next !== undefined && next.getTime() <= now.getTime();
}
