import { Cron } from "croner";
import { UsageError } from "../errors.ts";

/** Throws a UsageError unless tz is an IANA time zone name this Node knows. */
export function validateTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
  } catch {
    throw new UsageError(`timezone ${JSON.stringify(tz)}: not a known IANA time zone`);
  }
}

function cron(expr: string, timezone: string): Cron {
  try {
    return new Cron(expr, { timezone, paused: true });
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
