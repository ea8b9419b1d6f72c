import { pausedCron as cron } from "../jobs/schedule.ts";

/** First occurrence strictly after `after`, or undefined when the schedule never fires again. */
export function occurrenceAfter(expr: string, timezone: string, after: Date): Date | undefined {
  return cron(expr, timezone).nextRun(after) ?? undefined;
}

/** Latest occurrence at or before `at`, or undefined when there is none. */
export function occurrenceAtOrBefore(expr: string, timezone: string, at: Date): Date | undefined {
  // previousRuns() looks strictly before its reference; occurrences are whole seconds.
  return cron(expr, timezone).previousRuns(1, new Date(at.getTime() + 1))[0];
}
