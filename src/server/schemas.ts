import { z } from "@hono/zod-openapi";
import {
  queuedRunSchema,
  requestedRunSchema,
  runRequestOptionsSchema,
} from "../engine/run-requests/index.ts";

const RUN_STATUSES = ["running", "succeeded", "failed", "skipped", "abandoned"] as const;

/** Every error answer: `{ error: { code, message, issues? } }`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "not_found" }),
      message: z.string().openapi({ example: 'unknown job "nightly"' }),
      issues: z
        .array(
          z.object({
            path: z.array(z.union([z.string(), z.number()])),
            message: z.string(),
            code: z.string(),
          }),
        )
        .optional()
        .openapi({ description: "Validation problems (400 only), as zod reports them" }),
    }),
  })
  .openapi("Error");

/** A job as stored in `tm_jobs` (same shape as `tidemark job show --json`). */
export const JobSchema = z
  .object({
    name: z.string().openapi({ example: "nightly-books" }),
    type: z.string().openapi({ example: "books.run" }),
    params: z.unknown(),
    schedule: z.string().nullable().openapi({ example: "0 3 * * *" }),
    timezone: z.string().openapi({ example: "Asia/Tokyo" }),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    nextOccurrenceAt: z
      .string()
      .nullable()
      .openapi({ description: "Next cron occurrence (before jitter); null when unscheduled" }),
  })
  .openapi("Job");

/** A run from `tm_runs` (same shape as `tidemark runs show --json`). */
export const RunSchema = z
  .object({
    runId: z.string().openapi({ example: "nightly-books_20260115T030000Z_0a1b2c" }),
    jobName: z.string(),
    jobType: z.string(),
    status: z.enum(RUN_STATUSES),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    summary: z.record(z.string(), z.unknown()).nullable(),
    error: z.string().nullable(),
    dryRun: z.boolean(),
    leaseKey: z.string(),
    host: z.string(),
    pid: z.number().int(),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The params the run ran with (absent for runs recorded before)" }),
    /** Present once the run reported progress; a finished run keeps its last. */
    progress: z
      .object({
        label: z.string(),
        done: z.number(),
        total: z.number().nullable(),
        figures: z.record(z.string(), z.number()),
        updated_at: z.string(),
      })
      .optional(),
  })
  .openapi("Run");

// The engine's schemas may be built before @hono/zod-openapi extends zod (import order), so
// they lack .openapi(): the API's named schemas wrap their shapes in objects made here.

/** A run requested through the queue that no worker has started yet (the engine's RequestedRun). */
export const RequestedRunSchema = z.object(requestedRunSchema.shape).openapi("RequestedRun");

/** A job with its latest run. */
export const JobDetailSchema = JobSchema.extend({ lastRun: RunSchema.nullable() }).openapi(
  "JobDetail",
);

/** Body of POST /api/jobs/{name}/runs; empty = a normal run (the engine's RunRequestOptions). */
export const RunRequestBodySchema = z
  .object(runRequestOptionsSchema.shape)
  .strict()
  .openapi("RunRequest");

/** Answer of POST /api/jobs/{name}/runs: a projection of the engine's QueuedRun. */
export const QueuedRunSchema = z
  .object(queuedRunSchema.shape)
  .pick({ runId: true, messageId: true, jobName: true, dryRun: true, limit: true })
  .extend({
    status: z.literal("queued"),
    run_id: z.string().openapi({ description: "The same as runId (the name the webhook uses)" }),
  })
  .openapi("QueuedRun");

/** Query of GET /api/runs. */
export const RunListQuerySchema = z
  .object({
    job: z.string().min(1).optional().openapi({ description: "Only this job's runs" }),
    status: z.enum(RUN_STATUSES).optional(),
    // Digits only: z.coerce would read " 5", "0x10" and "1e3" as 5, 16 and 1000.
    limit: z
      .preprocess(
        (v) => (typeof v === "string" && /^\d{1,9}$/.test(v) ? Number(v) : v),
        z.number({ error: "expected a whole number from 1 to 1000" }).int().min(1).max(1000),
      )
      .default(50),
  })
  .strict();

/** GET /healthz. */
export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    db: z.object({ ok: z.boolean() }),
    queue: z.object({ ok: z.boolean(), engine: z.string().nullable() }),
  })
  .openapi("Health");

/** A job as the API answers it. */
export type JobOut = z.infer<typeof JobSchema>;
/** A run as the API answers it. */
export type RunOut = z.infer<typeof RunSchema>;
