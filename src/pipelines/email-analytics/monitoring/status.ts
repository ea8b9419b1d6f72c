import type { PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { FETCH_LEASE_KEY } from "../params.ts";
import { EmailsRepo } from "../repos/emails-repo.ts";
import { getJobRows, JOB_ROWS, parseMetadata, scheduledRange } from "../repos/ghost-jobs-repo.ts";
import type { EmailAnalyticsSettings } from "../settings.ts";
import type { EmailAnalyticsTables } from "../tables.ts";

/** One phase's `jobs` row as status shows it. */
export interface JobRowStatus {
  name: string;
  status: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Where the next fetch of this phase starts (`finished_at || started_at`). */
  watermark: string | null;
  /** Seconds between the watermark and now. */
  lag_seconds: number | null;
  /** Figures of the phase's last fetch, when recorded. */
  last_fetch: Record<string, unknown> | null;
  /** Events its last fetch skipped because they were stamped outside the window it asked for. */
  out_of_window: number;
}

/** What `tidemark email-analytics status` shows. */
export interface EmailAnalyticsStatus {
  running: boolean;
  jobs: JobRowStatus[];
  opened_lag_minutes: number | null;
  opened_lag_warning_minutes: number;
  opened_lag_warning: boolean;
  scheduled: { begin: string; end: string } | null;
  emails: number;
  /** Out-of-window events of the four phases' last fetches together. */
  out_of_window: number;
}

/** What status reads: the tables, the clock, the fetch's lease and the lag warning threshold. */
export type StatusServices = Pick<
  PipelineServices<Pick<EmailAnalyticsSettings, "openedLagWarningMinutes">>,
  "db" | "clock" | "leases" | "settings"
>;

/** Reads the four job rows, the lease and the backfill schedule. */
export async function emailAnalyticsStatus(
  services: StatusServices,
): Promise<EmailAnalyticsStatus> {
  const db = typed<EmailAnalyticsTables>(services.db);
  const rows = await getJobRows(db);
  const now = services.clock.now().getTime();
  const jobs = Object.values(JOB_ROWS).map((name): JobRowStatus => {
    const row = rows.find((r) => r.name === name);
    const watermark = row?.finished_at ?? row?.started_at ?? null;
    const lastFetch = parseMetadata(row).last_fetch ?? null;
    const skipped = Number(lastFetch?.out_of_window ?? 0);
    return {
      name,
      status: row?.status ?? null,
      started_at: row?.started_at ?? null,
      finished_at: row?.finished_at ?? null,
      watermark: watermark ? new Date(watermark).toISOString() : null,
      lag_seconds: watermark ? Math.round((now - new Date(watermark).getTime()) / 1000) : null,
      last_fetch: lastFetch,
      out_of_window: Number.isFinite(skipped) ? skipped : 0,
    };
  });
  const threshold = services.settings.openedLagWarningMinutes;
  const opened = jobs[0]?.lag_seconds ?? null;
  const openedMinutes = opened === null ? null : Math.floor(opened / 60);
  const emails = await new EmailsRepo().count(db);
  return {
    running: await services.leases.isHeld(FETCH_LEASE_KEY),
    jobs,
    opened_lag_minutes: openedMinutes,
    opened_lag_warning_minutes: threshold,
    opened_lag_warning: openedMinutes !== null && openedMinutes > threshold,
    scheduled: scheduledRange(rows.find((r) => r.name === JOB_ROWS.scheduled)) ?? null,
    emails,
    out_of_window: jobs.reduce((n, j) => n + j.out_of_window, 0),
  };
}

/** Human lines of a status. */
export function statusLines(s: EmailAnalyticsStatus): string[] {
  const lines = [
    `fetch: ${s.running ? "running" : "not running"}; emails: ${s.emails}`,
    ...s.jobs.map(
      (j) =>
        `${j.name.padEnd(31)} ${(j.status ?? "never run").padEnd(9)} watermark ${j.watermark ?? "-"}${
          j.lag_seconds === null ? "" : ` (${Math.floor(j.lag_seconds / 60)} min behind)`
        }${j.out_of_window > 0 ? `; last fetch skipped ${j.out_of_window} out of window` : ""}`,
    ),
    s.scheduled
      ? `scheduled backfill: ${s.scheduled.begin} → ${s.scheduled.end}`
      : "scheduled backfill: none",
  ];
  if (s.opened_lag_warning) {
    lines.push(
      `warning: opened events are ${s.opened_lag_minutes} minutes behind (threshold ${s.opened_lag_warning_minutes})`,
    );
  }
  return lines;
}
