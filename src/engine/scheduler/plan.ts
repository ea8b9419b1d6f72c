import { occurrenceAfter, occurrenceAtOrBefore } from "./cron-math.ts";

/** How a job's due occurrence is handled at `now`. */
export type Decision =
  | { action: "wait" }
  | { action: "fire"; occurrence: Date; kind: "on-time" | "misfire" }
  | { action: "skip-misfire"; occurrence: Date; lateMs: number };

/** The schedule of one job as the scheduler sees it. */
export interface JobTiming {
  schedule: string;
  timezone: string;
  /** This process's jitter offset for the job. */
  offsetMs: number;
}

/** Misfire handling: an occurrence later than graceMs is a misfire, skipped or run once. */
export interface MisfirePolicy {
  misfire: "skip" | "run_once";
  graceMs: number;
}

/**
 * Decides what to do once the next pending occurrence's fire time (occurrence + offset) has
 * come. Several passed occurrences are coalesced into the latest one: a job never fires
 * twice in a row to catch up. That latest one fires if it is at most `graceMs` late;
 * otherwise it is a misfire, run once or skipped by the policy.
 */
export function decide(
  timing: JobTiming,
  pending: Date,
  now: Date,
  policy: MisfirePolicy,
): Decision {
  if (pending.getTime() + timing.offsetMs > now.getTime()) return { action: "wait" };
  const latest =
    occurrenceAtOrBefore(
      timing.schedule,
      timing.timezone,
      new Date(now.getTime() - timing.offsetMs),
    ) ?? pending;
  const lateMs = now.getTime() - (latest.getTime() + timing.offsetMs);
  if (lateMs <= policy.graceMs) return { action: "fire", occurrence: latest, kind: "on-time" };
  if (policy.misfire === "run_once") return { action: "fire", occurrence: latest, kind: "misfire" };
  return { action: "skip-misfire", occurrence: latest, lateMs };
}

/** The next occurrence still to fire after `now` (its fire time is after now). */
export function nextPending(timing: JobTiming, now: Date): Date | undefined {
  return occurrenceAfter(
    timing.schedule,
    timing.timezone,
    new Date(now.getTime() - timing.offsetMs),
  );
}
