import { hostname, userInfo } from "node:os";
import { z } from "zod";
import { JobService } from "../jobs/job-service.ts";
import { RUN_ID_PATTERN } from "../runs/run-id.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Queue, SendOptions } from "./queue.ts";

/** The engine's queue of run requests (`tidemark run --queue`, the HTTP API, the scheduler). */
export const RUN_QUEUE = "tidemark.run";

/** A queued request to run a stored job. */
export const runRequestPayload = z
  .object({
    job: z.string().min(1),
    dryRun: z.boolean().default(false),
    limit: z.number().int().positive().nullable().default(null),
    /** Who asked: `cli:<user>@<host>`, `api:<token name>`, `scheduler`, … (for logs). */
    requestedBy: z.string().min(1),
    /** The run id promised at request time (the HTTP API answers with it); else one is made. */
    runId: z.string().regex(RUN_ID_PATTERN).optional(),
  })
  .strict();

/** A run request as sent. */
export type RunRequestPayload = z.input<typeof runRequestPayload>;

/**
 * Run requests get a long visibility timeout (renewed while the run lasts) and few retries:
 * a retry happens when the job was already running or the run could not start at all.
 */
export const RUN_SEND_DEFAULTS: SendOptions = {
  retryLimit: 5,
  retryDelaySeconds: 30,
  retryBackoff: true,
  visibilityTimeoutSeconds: 300,
};

/** `cli:<user>@<host>`, for requests made from this machine's CLI. */
export function cliRequester(): string {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): keep "unknown".
  }
  return `cli:${user}@${hostname()}`;
}

/**
 * Queues a run of a stored job; the job must exist (NotFoundError otherwise). Returns the
 * message id, or null when `options.singletonKey` dropped a duplicate.
 */
export async function enqueueRun(
  runtime: Pick<Runtime, "db" | "registry" | "clock">,
  queue: Queue,
  request: RunRequestPayload,
  options?: SendOptions,
): Promise<string | null> {
  const payload = runRequestPayload.parse(request);
  await new JobService(runtime.db, runtime.registry, runtime.clock).get(payload.job);
  return queue.send(RUN_QUEUE, payload, { ...RUN_SEND_DEFAULTS, ...options });
}

/** What `tidemark run <job> --queue` reports. */
export interface QueuedRun {
  job: string;
  queue: typeof RUN_QUEUE;
  messageId: string;
}

/** `tidemark run <job> --queue`: opens the configured queue, queues the run, closes it. */
export async function enqueueRunFromCli(
  runtime: Runtime,
  request: { job: string; dryRun?: boolean; limit?: number },
): Promise<QueuedRun> {
  const { openQueue } = await import("./open-queue.ts");
  const queue = await openQueue(runtime);
  try {
    const messageId = await enqueueRun(runtime, queue, {
      job: request.job,
      dryRun: request.dryRun ?? false,
      limit: request.limit ?? null,
      requestedBy: cliRequester(),
    });
    // Without a singleton key a send is never dropped.
    if (messageId === null) throw new Error("run request was not queued");
    return { job: request.job, queue: RUN_QUEUE, messageId };
  } finally {
    await queue.close();
  }
}
