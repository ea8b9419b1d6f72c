import type { Kysely } from "kysely";
import type { JobContext, JobResult } from "tidemark";
import { dialectOf, typed } from "tidemark/kit";
import { createMailgunEventsClient } from "../client/mailgun-events-client.ts";
import type { EmailAnalyticsFetchParams } from "../params.ts";
import { totalCounted } from "../repos/event-result.ts";
import { createFetchRepos } from "../repos/fetch-repos.ts";
import { JOB_ROWS, lastJobRunTimestamp } from "../repos/ghost-jobs-repo.ts";
import { type EmailAnalyticsSettings, mailgunCredentials } from "../settings.ts";
import { aggregatePending } from "../stages/aggregation/aggregate-pending.ts";
import { runCycle } from "../stages/fetch/cycle.ts";
import { describeFetchFailure } from "../stages/fetch/describe-failure.ts";
import {
  type FetchRun,
  newFetchData,
  newTotals,
  type PhaseReport,
} from "../stages/fetch/fetch-state.ts";
import { EventApplier } from "../stages/processing/apply-events.ts";
import type { EmailAnalyticsTables } from "../tables.ts";

/** Phase reports kept in a run's summary (the latest ones). */
const MAX_PHASES_IN_SUMMARY = 40;

/**
 * `email-analytics.fetch`: Ghost's email-analytics-fetch-latest. Skipped while no email exists;
 * otherwise runs cycles (restarted at once when Ghost would) until one ends without a restart
 * or `max_events` is reached. A Mailgun error that outlived the retries ends the run `failed`,
 * with every watermark at the last event applied.
 */
export async function runFetchJob(
  ctx: JobContext<EmailAnalyticsSettings>,
  params: EmailAnalyticsFetchParams,
): Promise<JobResult> {
  const db = typed<EmailAnalyticsTables>(ctx.db);
  const repos = createFetchRepos(dialectOf(db as unknown as Kysely<object>));
  if (!(await repos.emails.anyEmail(db))) {
    return {
      status: "skipped",
      summary: { events: 0 },
      message: "no email exists yet: nothing to fetch",
    };
  }
  const credentials = mailgunCredentials(ctx.settings, ctx.environ);
  if (ctx.dryRun) {
    return {
      status: "skipped",
      summary: { events: 0 },
      message: "dry run: Mailgun was not called",
    };
  }
  const run: FetchRun = {
    ctx,
    db,
    client: createMailgunEventsClient({
      credentials,
      logger: ctx.logger,
      retryMaxAttempts: ctx.settings.retryMaxAttempts,
      requestTimeoutMs: ctx.settings.requestTimeoutMs,
      now: () => ctx.clock.now(),
      onRequest: ctx.reportHttpRequest,
    }),
    repos,
    applier: new EventApplier(repos),
    data: {
      opened: newFetchData(JOB_ROWS.opened),
      others: newFetchData(JOB_ROWS.others),
      missing: newFetchData(JOB_ROWS.missing),
      scheduled: newFetchData(JOB_ROWS.scheduled),
    },
    totals: newTotals(),
    phases: [],
    aggregation: { emails: 0, members: 0, membersUnchanged: 0, midFetch: 0, errors: 0 },
    countedMembers: new Set(),
    missingErrorDetails: 0,
    outOfWindow: 0,
    pendingStored: true,
  };
  return runCycles(run, Math.min(params.max_events ?? Infinity, ctx.limit ?? Infinity));
}

/** Runs cycles until one needs no restart; builds the result (failed on a Mailgun error). */
export async function runCycles(run: FetchRun, maxEvents: number): Promise<JobResult> {
  const { ctx } = run;
  const started = performance.now();
  ctx.logger.info({ mode: "batched" }, "[EmailAnalytics] Starting fetch (mode: BATCHED)");
  const restarts: string[] = [];
  let events = 0;
  let cycles = 0;
  let failure: string | undefined;
  try {
    // What an earlier run applied but died (or failed) before aggregating is counted first.
    await aggregatePending(run);
    for (;;) {
      cycles += 1;
      const outcome = await runCycle(run, cycles);
      events += outcome.events;
      if (!outcome.restart || ctx.signal.aborted) break;
      if (events >= maxEvents) break;
      restarts.push(outcome.restart);
      ctx.logger.info(
        { reason: outcome.restart },
        `[EmailAnalytics] Restarting fetch due to ${outcome.restart}`,
      );
    }
  } catch (err) {
    if (ctx.signal.aborted || (err instanceof Error && err.name === "LeaseLostError")) throw err;
    failure = describeFetchFailure(err, ctx.settings);
    // The failing cycle never returned its count, yet its pages before the error were applied.
    events = run.phases.reduce((n, p) => n + p.events, 0);
  }
  const durationMs = Math.round(performance.now() - started);
  const lag = await openedLag(run);
  const summary = {
    mode: "batched",
    events,
    cycles,
    restarts,
    counts: run.totals,
    processed: totalCounted(run.totals),
    duration_ms: durationMs,
    events_per_second: durationMs > 0 ? Math.round((events * 1000) / durationMs) : 0,
    aggregation: {
      emails: run.aggregation.emails,
      members: run.aggregation.members,
      members_unchanged: run.aggregation.membersUnchanged,
      mid_fetch: run.aggregation.midFetch,
      errors: run.aggregation.errors,
    },
    failures_without_details: run.missingErrorDetails,
    out_of_window: run.outOfWindow,
    opened_watermark: lag.watermark,
    opened_lag_minutes: lag.minutes,
    opened_lag_warning: lag.warning,
    phases: run.phases.slice(-MAX_PHASES_IN_SUMMARY).map(compactPhase),
    ...(run.phases.length > MAX_PHASES_IN_SUMMARY
      ? { phases_omitted: run.phases.length - MAX_PHASES_IN_SUMMARY }
      : {}),
  };
  ctx.logger.info(
    { events, duration_ms: durationMs, counts: run.totals, cycles },
    `[EmailAnalytics] Fetch finished: ${events} events in ${durationMs} ms`,
  );
  if (failure !== undefined) {
    return { status: "failed", summary, message: failure };
  }
  return { summary };
}

/** Drops zero counters and empty fields from a phase report for the summary. */
function compactPhase(p: PhaseReport): Record<string, unknown> {
  const counts = Object.fromEntries(Object.entries(p.counts).filter(([, v]) => v > 0));
  return { ...p, counts };
}

/**
 * How far the opened events' watermark is behind now; logs Ghost's lag warning when it is
 * older than `opened_lag_warning_minutes`.
 */
async function openedLag(
  run: FetchRun,
): Promise<{ watermark: string | null; minutes: number | null; warning: boolean }> {
  const data = run.data.opened;
  const at =
    data.lastEventTimestamp ?? data.lastBegin ?? (await lastJobRunTimestamp(run.db, data.jobName));
  if (!at) return { watermark: null, minutes: null, warning: false };
  const minutes = Math.floor((run.ctx.clock.now().getTime() - at.getTime()) / 60_000);
  const threshold = run.ctx.settings.openedLagWarningMinutes;
  const warning = minutes > threshold;
  if (warning) {
    run.ctx.logger.warn(
      { opened_lag_minutes: minutes, threshold_minutes: threshold },
      `[EmailAnalytics] Opened events processing is ${minutes} minutes behind (threshold: ${threshold})`,
    );
  }
  return { watermark: at.toISOString(), minutes, warning };
}
