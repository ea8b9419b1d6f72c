import { hostname, userInfo } from "node:os";
import { z } from "zod";
import type { SendOptions } from "../queue/queue.ts";
import { RUN_ID_PATTERN } from "../runs/run-id.ts";

/** The engine's queue of run requests (`tidemark run --queue`, the HTTP API, the scheduler). */
export const RUN_QUEUE = "tidemark.run";

/** Who scheduled runs are requested by (the run handler skips them when the job is running). */
export const SCHEDULER_REQUESTER = "scheduler";

/** Who HTTP API requests are made by. */
export const API_REQUESTER = "api";

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

const dryRun = z.boolean().describe("Run without side-effect writes");
const limit = z.number().int().positive().describe("At most n targets");

/** What a caller may ask of a requested run; empty = a normal run (the API's request body). */
export const runRequestOptionsSchema = z
  .object({ dryRun: dryRun.optional(), limit: limit.optional() })
  .strict();

/** Options of a requested run. */
export type RunRequestOptions = z.infer<typeof runRequestOptionsSchema>;

/** The message on `tidemark.run`: a request to run a stored job. */
export const runRequestPayload = z
  .object({
    job: z.string().min(1),
    dryRun: dryRun.default(false),
    limit: limit.nullable().default(null),
    /** Who asked: `cli:<user>@<host>`, `api`, `scheduler`, … (for logs). */
    requestedBy: z.string().min(1),
    /** The run id promised at request time; absent in messages from before it was (one is made). */
    runId: z.string().regex(RUN_ID_PATTERN).optional(),
  })
  .strict();

/** A run request message as sent. */
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
