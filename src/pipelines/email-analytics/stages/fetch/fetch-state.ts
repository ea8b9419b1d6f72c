import type { Kysely } from "kysely";
import type { JobContext } from "tidemark";
import type { MailgunEventsClient } from "../../client/types.ts";
import { type EventCounts, zeroCounts } from "../../repos/event-result.ts";
import type { FetchRepos } from "../../repos/fetch-repos.ts";
import type { JobRowName } from "../../repos/ghost-jobs-repo.ts";
import type { EmailAnalyticsSettings } from "../../settings.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import type { EventApplier } from "../processing/apply-events.ts";

/** Ghost's TRUST_THRESHOLD_MS: Mailgun's storage is trusted for events older than this. */
export const TRUST_THRESHOLD_MS = 30 * 60 * 1000;
/** Ghost's FETCH_LATEST_END_MARGIN_MS: the latest fetches stop this long before now. */
export const FETCH_LATEST_END_MARGIN_MS = 60 * 1000;
/** Events one cycle may fetch before it restarts. */
export const CYCLE_BUDGET = 10_000;
/** The scheduled backfill is skipped when less budget than this is left. */
export const SCHEDULED_MIN_BUDGET = 300;
/** Mid-fetch aggregation: at least this often… */
export const AGGREGATE_EVERY_MS = 5 * 60 * 1000;
/** …or once more members than this wait for it. */
export const AGGREGATE_PENDING_MEMBERS = 5_000;

/**
 * What Ghost keeps in memory per phase (`#fetchLatestOpenedData`, …): here for one run, across
 * the cycles it restarts. A new run starts from the `jobs` rows.
 */
export interface FetchData {
  readonly jobName: JobRowName;
  /** The last applied event's time (+1 s once a fetch ended with nothing left to read). */
  lastEventTimestamp?: Date;
  /** The `begin` of the last fetch. */
  lastBegin?: Date;
  /** The scheduled phase only: the backfill range (`begin/end`) `lastEventTimestamp` belongs to. */
  range?: string;
  running: boolean;
}

/** Figures of one phase of one cycle (logs, summary, metrics). */
export interface PhaseReport {
  cycle: number;
  phase: "opened" | "others" | "missing" | "scheduled";
  budget: number;
  begin?: string;
  end?: string;
  events: number;
  pages: number;
  duration_ms: number;
  events_per_second: number;
  counts: EventCounts;
  /** Events skipped because their timestamp lies outside the window asked for. */
  out_of_window: number;
  skipped?: string;
  error?: string;
}

/** Everything the phases of a run share. */
export interface FetchRun {
  readonly ctx: JobContext<EmailAnalyticsSettings>;
  readonly db: Kysely<EmailAnalyticsTables>;
  readonly client: MailgunEventsClient;
  /** The run's repositories, built once by the job. */
  readonly repos: FetchRepos;
  readonly applier: EventApplier;
  readonly data: Record<"opened" | "others" | "missing" | "scheduled", FetchData>;
  readonly totals: EventCounts;
  readonly phases: PhaseReport[];
  readonly aggregation: {
    emails: number;
    members: number;
    /** Pending members not counted again: counted earlier in this run, nothing changed since. */
    membersUnchanged: number;
    midFetch: number;
    errors: number;
  };
  /**
   * Members this run counted whose recipient rows it has not changed since: counting them again
   * would give the same figures (bounded; cleared when large).
   */
  readonly countedMembers: Set<string>;
  /** Failure events that carried no error details (no failure row, as in Ghost). */
  missingErrorDetails: number;
  /** Events skipped because their timestamp lies outside the window their fetch asked for. */
  outOfWindow: number;
  /**
   * `email_analytics_pending` may hold rows: true at a run's start (an earlier run may have died
   * before aggregating) and after each applied batch; false after a successful aggregation.
   */
  pendingStored: boolean;
}

/** Fresh in-memory state for a run. */
export function newFetchData(jobName: JobRowName): FetchData {
  return { jobName, running: false };
}

/** Zeroed run totals. */
export function newTotals(): EventCounts {
  return zeroCounts();
}

/** Ghost's mid-fetch rule: aggregate when 5 minutes passed since the last one or > 5,000 members wait. */
export function midFetchAggregationDue(
  nowMs: number,
  lastAggregationMs: number,
  pendingMembers: number,
): boolean {
  return (
    nowMs - lastAggregationMs > AGGREGATE_EVERY_MS || pendingMembers > AGGREGATE_PENDING_MEMBERS
  );
}
