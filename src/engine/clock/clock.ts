/** Source of the current time; injected so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** ISO-8601 UTC with milliseconds, the one timestamp format stored by the engine. */
export function isoTimestamp(date: Date): string {
  return date.toISOString();
}

/** The date truncated to whole seconds (UTC). */
export function truncateToSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** 00:00:00 UTC of the date's day. */
export function utcDayStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}
