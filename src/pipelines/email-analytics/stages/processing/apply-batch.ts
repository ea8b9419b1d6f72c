import type { NormalizedEvent } from "../../client/types.ts";
import type { EventProcessingResult } from "../../repos/event-result.ts";
import { addCounts } from "../../repos/event-result.ts";
import {
  advanceFinishedAt,
  isScheduled,
  type ScheduledRange,
} from "../../repos/ghost-jobs-repo.ts";
import { markPending } from "../../repos/pending-stats.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import type { FetchData, FetchRun } from "../fetch/fetch-state.ts";

/** How a fetch's batches are applied. */
export interface BatchRules {
  /** Opened counts are refreshed only by fetches that ask for opened events. */
  includeOpened: boolean;
  /**
   * The backfill range a scheduled fetch reads. Once the row no longer stands for it (cancelled,
   * maybe scheduled again), its position must not land on the row: checked inside each commit
   * that moves the row's `finished_at`.
   */
  backfill?: ScheduledRange;
}

/**
 * Applies a batch of pages, records its emails and members as pending aggregation and moves the
 * row's `finished_at` to its last event, in one fenced commit.
 */
export async function applyBatch(
  run: FetchRun,
  data: FetchData,
  events: readonly NormalizedEvent[],
  rules: BatchRules,
): Promise<EventProcessingResult> {
  const last = events.reduce(
    (max, e) => (e.timestamp.getTime() > max.getTime() ? e.timestamp : max),
    (events[0] as NormalizedEvent).timestamp,
  );
  let result: EventProcessingResult;
  try {
    result = await run.ctx.commit<EmailAnalyticsTables, EventProcessingResult>(async (tx) => {
      const applied = await run.applier.apply(tx, events);
      await markPending(tx, applied, rules.includeOpened);
      if (!rules.backfill || (await isScheduled(tx, rules.backfill))) {
        await advanceFinishedAt(tx, data.jobName, last, run.ctx.clock.now());
      }
      return applied;
    });
  } catch (err) {
    // Rolled back: what the applier remembers may be ahead of the database.
    run.applier.reset();
    throw err;
  }
  if (!data.lastEventTimestamp || last.getTime() > data.lastEventTimestamp.getTime()) {
    data.lastEventTimestamp = last;
  }
  addCounts(run.totals, result.counts);
  run.missingErrorDetails += result.failuresWithoutDetails;
  if (result.emailIds.size > 0 || result.memberIds.size > 0) run.pendingStored = true;
  // A new open is the only event that changes a member's figures: count them again.
  for (const id of result.openedMembers) run.countedMembers.delete(id);
  return result;
}
