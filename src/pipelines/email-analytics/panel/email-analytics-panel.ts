import {
  type PanelBlock,
  type PanelModule,
  type PanelRun,
  type PipelineServices,
  runOrderChart,
  summaryNumber,
} from "tidemark";
import { typed } from "tidemark/kit";
import { emailAnalyticsStatus } from "../monitoring/status.ts";
import { EmailsRepo } from "../repos/emails-repo.ts";
import { emailAnalyticsServices } from "../settings.ts";
import type { EmailAnalyticsTables } from "../tables.ts";

/** Emails in the table and the chart, newest first. */
const EMAILS = 50;

const pct = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
const pctText = (v: number | null) => (v === null ? "—" : `${v}%`);

function minutes(seconds: number | null): string {
  return seconds === null ? "—" : `${Math.floor(seconds / 60)} min`;
}

async function emailBlocks(services: Pick<PipelineServices, "db">): Promise<PanelBlock[]> {
  const emails = await new EmailsRepo().newest(typed<EmailAnalyticsTables>(services.db), EMAILS);
  const oldestFirst = [...emails].reverse();
  return [
    {
      kind: "table",
      title: "Emails",
      columns: ["Subject", "Sent", "Recipients", "Delivered", "Opened", "Failed"],
      empty: "No email yet.",
      rows: emails.map((e) => [
        e.subject ?? e.id,
        e.submitted_at,
        e.email_count,
        pctText(pct(e.delivered_count, e.email_count)),
        e.track_opens ? pctText(pct(e.opened_count, e.delivered_count)) : "not tracked",
        e.failed_count > 0
          ? { text: pctText(pct(e.failed_count, e.email_count)), tone: "bad" }
          : pctText(pct(0, e.email_count)),
      ]),
    },
    {
      kind: "chart",
      // One step per email, oldest first: emails sent minutes apart stay apart.
      title: "Open rate per email (% of delivered, oldest email first)",
      time: false,
      x: oldestFirst.map((_, i) => i + 1),
      labels: oldestFirst.map(
        (e) => `${e.subject ?? e.id} · ${e.submitted_at.slice(0, 16).replace("T", " ")} UTC`,
      ),
      series: [
        {
          label: "open rate %",
          values: oldestFirst.map((e) =>
            e.track_opens ? pct(e.opened_count, e.delivered_count) : null,
          ),
        },
      ],
      empty: "No email yet.",
    },
  ];
}

/** Fetch runs shown in the events chart. */
const CHART_RUNS = 60;

/** Events each fetch run took in, one line per event type (delivered, opened, …). */
function eventsChart(runs: readonly PanelRun[]): PanelBlock {
  const countsOf = (r: PanelRun) => {
    const c = r.summary?.counts;
    return c !== null && typeof c === "object" ? (c as Record<string, unknown>) : {};
  };
  const types = [...new Set(runs.flatMap((r) => Object.keys(countsOf(r))))].sort();
  return runOrderChart({
    title: "Events per fetch run, by type (by run order)",
    runs: runs.filter((r) => summaryNumber(r, "events") !== null),
    series: types.map((t) => ({
      label: t,
      value: (r: PanelRun) => {
        const v = countsOf(r)[t];
        return typeof v === "number" ? v : 0;
      },
    })),
    empty: "No fetch run yet.",
  });
}

/** The email-analytics panel: the fetch job rows and their lag, each email's rates, open rates. */
export const emailAnalyticsPanel: PanelModule = {
  async view({ services, recentRuns }) {
    const [status, runs] = await Promise.all([
      emailAnalyticsStatus(emailAnalyticsServices(services)),
      recentRuns({ limit: CHART_RUNS }),
    ]);
    const lag = status.opened_lag_minutes;
    return {
      blocks: [
        {
          kind: "stats",
          items: [
            { label: "emails", value: status.emails },
            { label: "fetch", value: status.running ? "running" : "idle" },
            {
              label: `opened watermark lag (warn over ${status.opened_lag_warning_minutes} min)`,
              value: lag === null ? "never fetched" : `${lag} min`,
              tone: status.opened_lag_warning ? "bad" : lag === null ? "muted" : "ok",
            },
          ],
        },
        {
          kind: "table",
          title: "Fetch job rows",
          columns: ["Job row", "Status", "Watermark", "Lag", "Out of window (last fetch)"],
          empty: "No job row yet.",
          rows: status.jobs.map((j) => [
            j.name,
            j.status
              ? { text: j.status, tone: j.status === "failed" ? "bad" : undefined }
              : { text: "never run", tone: "muted" },
            j.watermark,
            minutes(j.lag_seconds),
            j.out_of_window > 0
              ? { text: String(j.out_of_window), tone: "bad" }
              : { text: "0", tone: "muted" },
          ]),
        },
        ...(await emailBlocks(services)),
        eventsChart(runs),
      ],
    };
  },
};
