/** Counters of one batch of events, as Ghost's EventProcessingResult keeps them. */
export interface EventCounts {
  delivered: number;
  opened: number;
  temporaryFailed: number;
  permanentFailed: number;
  unsubscribed: number;
  complained: number;
  unhandled: number;
  unprocessable: number;
}

/** Every counter at zero. */
export function zeroCounts(): EventCounts {
  return {
    delivered: 0,
    opened: 0,
    temporaryFailed: 0,
    permanentFailed: 0,
    unsubscribed: 0,
    complained: 0,
    unhandled: 0,
    unprocessable: 0,
  };
}

/** Adds `from` into `into` (in place). */
export function addCounts(into: EventCounts, from: EventCounts): void {
  for (const key of Object.keys(into) as Array<keyof EventCounts>) into[key] += from[key];
}

/** The sum of every counter: how many events a result covers. */
export function totalCounted(c: EventCounts): number {
  return Object.values(c).reduce((a, b) => a + b, 0);
}

/**
 * What applying events produced: the counters and the emails and members whose statistics
 * must be aggregated again (Ghost's `emailIds` / `memberIds`).
 */
export class EventProcessingResult {
  readonly counts: EventCounts = zeroCounts();
  readonly emailIds = new Set<string>();
  readonly memberIds = new Set<string>();
  /**
   * Members with a newly set `opened_at`: the only effect of events on a member's figures
   * (email_count and the tracked count depend on the recipient rows, not on events).
   */
  readonly openedMembers = new Set<string>();
  /** Failure events without error details: counted, but no failure row (Ghost logs them). */
  failuresWithoutDetails = 0;

  /** Adds another result's counters and ids. */
  merge(other: EventProcessingResult): void {
    addCounts(this.counts, other.counts);
    this.failuresWithoutDetails += other.failuresWithoutDetails;
    for (const id of other.emailIds) this.emailIds.add(id);
    for (const id of other.memberIds) this.memberIds.add(id);
    for (const id of other.openedMembers) this.openedMembers.add(id);
  }
}
