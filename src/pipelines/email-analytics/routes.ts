/** `/api/email-analytics/…` route descriptors (mounted by `tidemark serve`). */

import type { RouteSpec } from "tidemark";
import { z } from "zod";
import { emailAnalyticsServices } from "./settings.ts";

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

/**
 * status, schedule (POST, DELETE) and an email's stats. Errors are thrown, not answered here, so
 * the server gives them the engine's `{"error": {"code", "message"}}` body: a UsageError 400
 * (invalid_request), a NotFoundError 404 (not_found), an AlreadyRunningError 409 (conflict).
 */
export const emailAnalyticsRoutes: readonly RouteSpec[] = [
  {
    method: "get",
    path: "/status",
    summary: "The four fetch job rows, watermarks, lag, whether a fetch is running, the backfill",
    response: statusSchema,
    async handle(_input, { services }) {
      const { emailAnalyticsStatus } = await import("./monitoring/status.ts");
      return { body: await emailAnalyticsStatus(emailAnalyticsServices(services)) };
    },
  },
  {
    method: "post",
    path: "/schedule",
    summary: "Schedule a backfill of Mailgun events between begin and end (ISO-8601)",
    body: range.strict(),
    response: z.object({ scheduled: range }),
    errors: { 409: { description: "A backfill is being fetched: cancel it first" } },
    async handle({ body }, { services }) {
      const { scheduleBackfill, validateRange } = await import("./commands/schedule-command.ts");
      const { begin, end } = body as { begin: string; end: string };
      // An API caller sends body fields, not the CLI's flags: messages name them.
      const r = validateRange(begin, end, { begin: "begin", end: "end" });
      await scheduleBackfill(services, r);
      return { status: 201, body: { scheduled: r } };
    },
  },
  {
    method: "delete",
    path: "/schedule",
    summary: "Cancel the scheduled backfill (a running one stops at its next page)",
    response: z.object({ canceled: z.boolean() }),
    async handle(_input, { services }) {
      const { cancelBackfill } = await import("./commands/schedule-command.ts");
      return { body: { canceled: await cancelBackfill(services) } };
    },
  },
  {
    method: "get",
    path: "/emails/{id}/stats",
    summary: "One email's counts: sent, delivered, opened, failed, failures, complaints",
    params: z.object({ id: z.string() }),
    response: statsSchema,
    async handle({ params }, { services }) {
      const { emailStats } = await import("./repos/email-stats.ts");
      return { body: await emailStats(services, String(params.id)) };
    },
  },
];
