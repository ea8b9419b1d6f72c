import { z } from "zod";

/**
 * A run request accepted onto the queue, as `tm_run_requests` records it: the one shape the
 * CLI, the scheduler and the HTTP API get back (the API answers a projection of it).
 */
export const queuedRunSchema = z.object({
  runId: z.string().describe("The id the run will be recorded under; poll /api/runs/{run_id}"),
  jobName: z.string(),
  queue: z.string().describe("The queue carrying the request (tidemark.run)"),
  messageId: z.string().describe("The queue message carrying the request"),
  requestedBy: z.string().describe("cli:<user>@<host>, api or scheduler"),
  requestedAt: z.string(),
  dryRun: z.boolean(),
  limit: z.number().int().positive().nullable(),
});

/** A run request accepted onto the queue. */
export type QueuedRun = z.infer<typeof queuedRunSchema>;

/** A requested run that has no `tm_runs` row yet (no worker has started it). */
export const requestedRunSchema = queuedRunSchema
  .pick({
    runId: true,
    jobName: true,
    messageId: true,
    requestedAt: true,
    dryRun: true,
    limit: true,
  })
  .extend({
    status: z
      .enum(["queued", "dead"])
      .describe("queued: waiting for a worker; dead: the queue gave up (see error)"),
    attempts: z.number().int().describe("Deliveries so far"),
    error: z
      .string()
      .nullable()
      .describe("Why the last delivery failed (e.g. the job was running), null when none failed"),
  });

/** A requested run not started yet: `queued` while its message waits, `dead` once given up. */
export type RequestedRun = z.infer<typeof requestedRunSchema>;
