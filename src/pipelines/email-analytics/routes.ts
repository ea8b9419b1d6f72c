/** `/api/email-analytics/…` route descriptors (mounted by `tidemark serve`). */
import { z } from "zod";
import type { RouteSpec } from "../../engine/define.ts";

const jobRow = z.object({
  name: z.string(),
  status: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  watermark: z.string().nullable(),
  lag_seconds: z.number().nullable(),
  last_fetch: z.record(z.string(), z.unknown()).nullable(),
});

const range = z.object({ begin: z.string(), end: z.string() });

const statusSchema = z.object({
  running: z.boolean(),
  jobs: z.array(jobRow),
  opened_lag_minutes: z.number().nullable(),
  opened_lag_warning_minutes: z.number(),
  opened_lag_warning: z.boolean(),
  scheduled: range.nullable(),
  emails: z.number(),
});

const statsSchema = z.object({
  id: z.string(),
  subject: z.string().nullable(),
  status: z.string(),
  submitted_at: z.string(),
  track_opens: z.boolean(),
  email_count: z.number(),
  delivered_count: z.number(),
  opened_count: z.number(),
  failed_count: z.number(),
  recipients: z.object({
    total: z.number(),
    delivered: z.number(),
    opened: z.number(),
    failed: z.number(),
  }),
  open_rate: z.number().nullable(),
  failures: z.object({ permanent: z.number(), temporary: z.number() }),
  spam_complaints: z.number(),
});

/** Answers a usage problem as 400 with its one-line message. */
async function badRequestOn<T>(
  body: () => Promise<T>,
): Promise<T | { status: number; body: unknown }> {
  try {
    return await body();
  } catch (err) {
    const exitCode = (err as { exitCode?: number }).exitCode;
    if (exitCode === 2) return { status: 400, body: { error: (err as Error).message } };
    if (exitCode === 3) return { status: 409, body: { error: (err as Error).message } };
    throw err;
  }
}

/** status, schedule (POST, DELETE) and an email's stats. */
export const emailAnalyticsRoutes: readonly RouteSpec[] = [
  {
    method: "get",
    path: "/status",
    summary: "The four fetch job rows, watermarks, lag, whether a fetch is running, the backfill",
    response: statusSchema,
    async handle(_input, { runtime }) {
      const { emailAnalyticsStatus } = await import("./monitoring/status.ts");
      return { body: await emailAnalyticsStatus(runtime) };
    },
  },
  {
    method: "post",
    path: "/schedule",
    summary: "Schedule a backfill of Mailgun events between begin and end (ISO-8601)",
    body: range.strict(),
    response: z.object({ scheduled: range }),
    async handle({ body }, { runtime }) {
      const { scheduleBackfill, validateRange } = await import("./commands/schedule-command.ts");
      return badRequestOn(async () => {
        const { begin, end } = body as { begin: string; end: string };
        const r = validateRange(begin, end);
        await scheduleBackfill(runtime, r);
        return { status: 201, body: { scheduled: r } };
      });
    },
  },
  {
    method: "delete",
    path: "/schedule",
    summary: "Cancel the scheduled backfill (a running one stops at its next page)",
    response: z.object({ canceled: z.boolean() }),
    async handle(_input, { runtime }) {
      const { cancelBackfill } = await import("./commands/schedule-command.ts");
      return { body: { canceled: await cancelBackfill(runtime) } };
    },
  },
  {
    method: "get",
    path: "/emails/{id}/stats",
    summary: "One email's counts: sent, delivered, opened, failed, failures, complaints",
    params: z.object({ id: z.string() }),
    response: statsSchema,
    async handle({ params }, { runtime }) {
      const { emailStats } = await import("./repos/email-stats.ts");
      return badRequestOn(async () => {
        try {
          return { body: await emailStats(runtime, String(params.id)) };
        } catch (err) {
          if ((err as Error).name === "NotFoundError") {
            return { status: 404, body: { error: (err as Error).message } };
          }
          throw err;
        }
      });
    },
  },
];
