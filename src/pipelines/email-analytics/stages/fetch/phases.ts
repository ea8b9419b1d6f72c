import { ALL_EVENTS, NON_OPENED_EVENTS, OPENED_EVENTS } from "../../client/types.ts";
import {
  clearSchedule,
  getJobRow,
  isScheduled,
  JOB_ROWS,
  lastJobRunTimestamp,
  scheduledRange,
} from "../../repos/ghost-jobs-repo.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import { fetchEvents, newPhaseReport } from "./fetch-events.ts";
import {
  FETCH_LATEST_END_MARGIN_MS,
  type FetchRun,
  type PhaseReport,
  SCHEDULED_MIN_BUDGET,
  TRUST_THRESHOLD_MS,
} from "./fetch-state.ts";

/** Latest value of one of email_recipients' timestamp columns (Ghost's first-run fallback). */
async function maxRecipientTimestamp(
  run: FetchRun,
  columns: ReadonlyArray<"opened_at" | "delivered_at" | "failed_at">,
): Promise<Date | undefined> {
  let best: Date | undefined;
  for (const column of columns) {
    const value = await run.repos.recipients.latest(run.db, column);
    if (value && (!best || value > best)) best = value;
  }
  return best;
}

/**
 * Ghost's begin of a latest fetch: the run's last event (+1 s), else the row's
 * `finished_at || started_at`, else the latest timestamp in email_recipients, else 30 min ago.
 */
async function latestBegin(
  run: FetchRun,
  key: "opened" | "others",
  columns: ReadonlyArray<"opened_at" | "delivered_at" | "failed_at">,
): Promise<Date> {
  const data = run.data[key];
  return (
    data.lastEventTimestamp ??
    (await lastJobRunTimestamp(run.db, data.jobName)) ??
    (await maxRecipientTimestamp(run, columns)) ??
    new Date(run.ctx.clock.now().getTime() - TRUST_THRESHOLD_MS)
  );
}

/** Runs a phase with its report: timing, throughput, skip and error notes. */
async function withReport(
  run: FetchRun,
  report: PhaseReport,
  body: () => Promise<number>,
): Promise<number> {
  const started = performance.now();
  run.phases.push(report);
  try {
    return await body();
  } catch (err) {
    report.error = err instanceof Error ? err.message : String(err);
    throw err;
  } finally {
    report.duration_ms = Math.round(performance.now() - started);
    report.events_per_second =
      report.duration_ms > 0 ? Math.round((report.events * 1000) / report.duration_ms) : 0;
    if (!report.skipped) {
      run.ctx.logger.info(
        {
          phase: report.phase,
          cycle: report.cycle,
          events: report.events,
          duration_ms: report.duration_ms,
          events_per_second: report.events_per_second,
          counts: report.counts,
        },
        `[EmailAnalytics] ${report.phase}: ${report.events} events in ${report.duration_ms} ms (${report.events_per_second}/s)`,
      );
    }
  }
}

/** Skips a phase whose window is empty (end ≤ begin), as Ghost does: no Mailgun call. */
function skipEmptyWindow(run: FetchRun, report: PhaseReport, begin: Date, end: Date): boolean {
  report.begin = begin.toISOString();
  report.end = end.toISOString();
  if (end.getTime() > begin.getTime()) return false;
  report.skipped = "end is not after begin";
  run.ctx.logger.info(
    { phase: report.phase },
    `[EmailAnalytics] Skipping ${report.phase} because end (${report.end}) is not after begin (${report.begin})`,
  );
  return true;
}

/** Phase 1: latest opened events, `begin` … now − 1 min. */
export function fetchLatestOpened(
  run: FetchRun,
  cycle: number,
  maxEvents: number,
): Promise<number> {
  const report = newPhaseReport(cycle, "opened", maxEvents);
  return withReport(run, report, async () => {
    const begin = await latestBegin(run, "opened", ["opened_at"]);
    const end = new Date(run.ctx.clock.now().getTime() - FETCH_LATEST_END_MARGIN_MS);
    if (skipEmptyWindow(run, report, begin, end)) return 0;
    return fetchEvents(
      run,
      run.data.opened,
      {
        begin,
        end,
        maxEvents,
        events: OPENED_EVENTS,
        includeOpened: true,
      },
      report,
    );
  });
}

/** Phase 2: latest delivered, failed, unsubscribed and complained events. */
export function fetchLatestOthers(
  run: FetchRun,
  cycle: number,
  maxEvents: number,
): Promise<number> {
  const report = newPhaseReport(cycle, "others", maxEvents);
  return withReport(run, report, async () => {
    const begin = await latestBegin(run, "others", ["delivered_at", "failed_at"]);
    const end = new Date(run.ctx.clock.now().getTime() - FETCH_LATEST_END_MARGIN_MS);
    if (skipEmptyWindow(run, report, begin, end)) return 0;
    return fetchEvents(
      run,
      run.data.others,
      {
        begin,
        end,
        maxEvents,
        events: NON_OPENED_EVENTS,
        includeOpened: false,
      },
      report,
    );
  });
}

/**
 * Phase 3: every type again, from where the missing fetch stopped (else 2 h ago) until 30 min
 * ago or the latest non-opened fetch's begin, whichever is earlier: events Mailgun stored late.
 */
export function fetchMissing(run: FetchRun, cycle: number, maxEvents: number): Promise<number> {
  const report = newPhaseReport(cycle, "missing", maxEvents);
  return withReport(run, report, async () => {
    const data = run.data.missing;
    const now = run.ctx.clock.now().getTime();
    const begin =
      data.lastEventTimestamp ??
      data.lastBegin ??
      (await lastJobRunTimestamp(run.db, data.jobName)) ??
      new Date(now - TRUST_THRESHOLD_MS * 4);
    const end = new Date(
      Math.min(now - TRUST_THRESHOLD_MS, run.data.others.lastBegin?.getTime() ?? now),
    );
    if (skipEmptyWindow(run, report, begin, end)) return 0;
    return fetchEvents(
      run,
      data,
      { begin, end, maxEvents, events: ALL_EVENTS, includeOpened: true },
      report,
    );
  });
}

/** Ends the scheduled backfill: the range is cleared and the row marked finished. */
async function endSchedule(run: FetchRun): Promise<void> {
  await run.ctx.commit<EmailAnalyticsTables, void>((tx) => clearSchedule(tx, run.ctx.clock.now()));
  run.data.scheduled.lastEventTimestamp = undefined;
}

/**
 * Phase 4: the operator's backfill range (`schedule --begin --end`), from its begin or the last
 * event it applied; skipped with less than 300 events of budget. Cancelled between pages by
 * `schedule --cancel`; ended once its range is read to the end.
 */
export function fetchScheduled(run: FetchRun, cycle: number, maxEvents: number): Promise<number> {
  const report = newPhaseReport(cycle, "scheduled", maxEvents);
  if (maxEvents < SCHEDULED_MIN_BUDGET) {
    report.skipped = `less than ${SCHEDULED_MIN_BUDGET} events of budget left`;
    run.phases.push(report);
    return Promise.resolve(0);
  }
  return withReport(run, report, async () => {
    const row = await getJobRow(run.db, JOB_ROWS.scheduled);
    const range = scheduledRange(row);
    if (!range) {
      report.skipped = "nothing scheduled";
      return 0;
    }
    const data = run.data.scheduled;
    // What this run remembers belongs to the range it read; a range scheduled since starts over.
    const key = `${range.begin}/${range.end}`;
    if (data.range !== key) {
      data.range = key;
      data.lastEventTimestamp = undefined;
    }
    const stored = row?.finished_at ? new Date(row.finished_at) : undefined;
    const last = data.lastEventTimestamp ?? stored;
    let begin = new Date(range.begin);
    if (last && last > begin) begin = last;
    const end = new Date(range.end);
    if (skipEmptyWindow(run, report, begin, end)) {
      await endSchedule(run);
      return 0;
    }
    const count = await fetchEvents(
      run,
      data,
      {
        begin,
        end,
        maxEvents,
        events: ALL_EVENTS,
        includeOpened: true,
        backfill: range,
      },
      report,
    );
    // Read to the end of the range (not stopped by the budget): the backfill is done. Ghost
    // keeps re-reading the empty tail every cycle until it is cancelled.
    if (count < maxEvents && (await isScheduled(run.db, range))) await endSchedule(run);
    return count;
  });
}
