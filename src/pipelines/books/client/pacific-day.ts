/** Google's quota day: it resets at midnight in this zone (PST/PDT alike). */
export const QUOTA_TIME_ZONE = "America/Los_Angeles";

const formatter = new Intl.DateTimeFormat("en-CA", {
  timeZone: QUOTA_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/** The `YYYY-MM-DD` quota day (America/Los_Angeles) an instant falls on. */
export function pacificDay(instant: Date): string {
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}
