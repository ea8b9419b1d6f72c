import type { NormalizedEvent } from "../../client/types.ts";
import { addCounts, zeroCounts } from "../../repos/event-result.ts";
import {
  advanceFinishedAt,
  isScheduled,
  recordLastFetch,
  setJobTimestamp,
} from "../../repos/ghost-jobs-repo.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import { aggregatePending, isLeaseLost } from "../aggregation/aggregate-pending.ts";
import { applyBatch, type BatchRules } from "../processing/apply-batch.ts";
import {
  type FetchData,
  type FetchRun,
  midFetchAggregationDue,
  type PhaseReport,
} from "./fetch-state.ts";
import { readAhead } from "./read-ahead.ts";

/** Pages read ahead while the previous ones are applied (hides Mailgun's latency). */
const READ_AHEAD_PAGES = 2;
/**
 * Events applied per fenced commit: about ten pages, so commits stay few and short, yet a batch
 * waiting for its commit is small enough to die young (10,000 buffered events outlived two
 * scavenges: ~360 MB of a million-event run was promoted, and V8 grew the heap to 4× the live
 * data).
 */
export const APPLY_BATCH_EVENTS = 3_000;

/** Thrown between pages when the operator cancelled the scheduled backfill. */
export class FetchCanceled extends Error {
  constructor() {
    super("Fetching canceled");
  }
}

/** One fetch's window and rules. */
export interface FetchWindow extends BatchRules {
  begin: Date;
  end: Date;
  maxEvents: number;
  /** Mailgun event types (`event=a OR b`). */
  events: readonly string[];
}

/**
 * Ghost's #fetchEvents: writes the row's `started_at` (= begin), reads the window page by page,
 * applies each batch of pages (up to 3,000 events) in one fenced commit that also records its
 * emails and members as pending and moves the row's `finished_at` to the batch's last event (so a
 * crash resumes there and loses no aggregation), aggregates mid-fetch every 5 minutes or 5,000
 * pending members and once at the end, then applies Ghost's watermark rule. A Mailgun error that
 * outlived the retries is rethrown after that, with the watermark at the last applied event.
 */
export async function fetchEvents(
  run: FetchRun,
  data: FetchData,
  window: FetchWindow,
  report: PhaseReport,
): Promise<number> {
  const { ctx } = run;
  const startedAt = ctx.clock.now();
  ctx.logger.info(
    {
      job_row: data.jobName,
      begin: window.begin.toISOString(),
      end: window.end.toISOString(),
      max_events: window.maxEvents,
    },
    `[EmailAnalytics] Fetching from ${window.begin.toISOString()} until ${window.end.toISOString()} (maxEvents: ${window.maxEvents})`,
  );
  await ctx.commit<EmailAnalyticsTables, void>((tx) =>
    setJobTimestamp(tx, data.jobName, "started", window.begin, ctx.clock.now()),
  );
  data.running = true;
  data.lastBegin = window.begin;
  let eventCount = 0;
  // Members applied since the last aggregation (the mid-fetch threshold); the ids themselves
  // wait in email_analytics_pending, written with each batch.
  let waitingMembers = new Set<string>();
  let lastAggregation = ctx.clock.now().getTime();
  let error: unknown;
  // Read to the end of the window, as opposed to stopped by the budget with more to come.
  let windowRead = true;
  let buffer: NormalizedEvent[] = [];
  /** Applies the buffered pages in one commit, then aggregates mid-fetch when due. */
  const flush = async () => {
    if (buffer.length === 0) return;
    const events = buffer;
    buffer = [];
    const result = await applyBatch(run, data, events, window);
    addCounts(report.counts, result.counts);
    for (const id of result.memberIds) waitingMembers.add(id);
    eventCount += events.length;
    if (midFetchAggregationDue(ctx.clock.now().getTime(), lastAggregation, waitingMembers.size)) {
      if (await aggregatePending(run)) {
        run.aggregation.midFetch += 1;
        lastAggregation = ctx.clock.now().getTime();
        waitingMembers = new Set();
      }
    }
    // The scheduled backfill's cancel is checked after every applied batch.
    if (window.backfill && !(await isScheduled(run.db, window.backfill))) throw new FetchCanceled();
  };
  try {
    const pages = run.client.fetchEvents({
      begin: window.begin,
      end: window.end,
      events: window.events,
      maxEvents: window.maxEvents,
      fetchStartedAt: startedAt,
      signal: ctx.signal,
    });
    for await (const page of readAhead(pages, READ_AHEAD_PAGES)) {
      report.pages += 1;
      report.out_of_window += page.outOfWindow;
      run.outOfWindow += page.outOfWindow;
      windowRead = !page.stoppedAtBudget;
      for (const e of page.events) buffer.push(e);
      if (buffer.length >= APPLY_BATCH_EVENTS) await flush();
    }
    await flush();
    ctx.logger.info({ job_row: data.jobName }, "[EmailAnalytics] Fetching finished");
  } catch (err) {
    if (err instanceof FetchCanceled) {
      ctx.logger.warn({ job_row: data.jobName }, "[EmailAnalytics] Canceled fetching");
    } else {
      error = err;
      ctx.logger.error(
        { job_row: data.jobName, err: err instanceof Error ? err.message : String(err) },
        "[EmailAnalytics] Error while fetching",
      );
      // The pages read before the error are applied, so the watermark ends at their last event.
      if (!isLeaseLost(run, err)) {
        await flush().catch((e: unknown) => {
          if (!(e instanceof FetchCanceled)) throw e;
        });
      }
    }
  }
  await aggregatePending(run);
  report.events += eventCount;
  report.duration_ms = Math.round(ctx.clock.now().getTime() - startedAt.getTime());
  await storeWatermark(run, data, report, window, windowRead, error !== undefined);
  data.running = false;
  if (error !== undefined) throw error;
  return eventCount;
}

/**
 * Ghost's end-of-fetch rule: when events were read without error, fewer than maxEvents, and the
 * last one is over 2 s old, `finished_at` = that event (status finished) and the next fetch of
 * this run starts 1 s later; otherwise only the status is set (`failed` after an error).
 * Unlike Ghost, a fetch that read its window to the end counts as complete even with maxEvents
 * or more events: a crowd larger than the budget on one timestamp would otherwise be re-read
 * from that timestamp by every restarted cycle, for ever.
 */
async function storeWatermark(
  run: FetchRun,
  data: FetchData,
  report: PhaseReport,
  window: FetchWindow,
  windowRead: boolean,
  failed: boolean,
): Promise<void> {
  const { ctx } = run;
  const { maxEvents, backfill } = window;
  const now = ctx.clock.now();
  const last = data.lastEventTimestamp;
  const eventCount = report.events;
  const figures = {
    at: now.toISOString(),
    events: eventCount,
    pages: report.pages,
    duration_ms: report.duration_ms,
    counts: report.counts,
    out_of_window: report.out_of_window,
    ...(failed ? { failed: true } : {}),
  };
  const complete =
    !failed &&
    eventCount > 0 &&
    (eventCount < maxEvents || windowRead) &&
    last !== undefined &&
    last.getTime() < now.getTime() - 2000;
  if (eventCount === 0 && !failed) {
    ctx.logger.info({ job_row: data.jobName }, "[EmailAnalytics] No new events found");
  }
  const outcome = await ctx.commit<EmailAnalyticsTables, "owned" | "lost">(async (tx) => {
    if (backfill && !(await isScheduled(tx, backfill))) {
      // Cancelled (maybe scheduled again): this range's position means nothing to the row.
      await recordLastFetch(tx, data.jobName, figures, {}, now);
      return "lost";
    }
    if (complete) await advanceFinishedAt(tx, data.jobName, last, now, { status: "finished" });
    await recordLastFetch(
      tx,
      data.jobName,
      figures,
      complete ? {} : { status: failed ? "failed" : "finished" },
      now,
    );
    return "owned";
  });
  if (outcome === "lost") data.lastEventTimestamp = undefined;
  else if (complete) data.lastEventTimestamp = new Date(last.getTime() + 1000);
}

/** A report for a phase about to run. */
export function newPhaseReport(
  cycle: number,
  phase: PhaseReport["phase"],
  budget: number,
): PhaseReport {
  return {
    cycle,
    phase,
    budget,
    events: 0,
    pages: 0,
    duration_ms: 0,
    events_per_second: 0,
    counts: zeroCounts(),
    out_of_window: 0,
  };
}
