import type { JobRecord } from "../engine/jobs/job-repo.ts";
import type { TidemarkMetrics } from "../engine/metrics/tidemark-metrics.ts";
import type { Queue } from "../engine/queue/queue.ts";
import type { QueuedRun, RequestedRun, RunRequestOptions } from "../engine/run-requests/index.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";

// The run-request types are the engine's; re-exported for the server's callers.
export type { QueuedRun, RequestedRun, RunRequestOptions };

/** What the system routes (/healthz, /metrics) need from the process hosting them. */
export interface SystemServices {
  readonly runtime: Runtime;
  /** The process's queue; undefined when none is open (health then reports it missing). */
  readonly queue: Queue | undefined;
  readonly metrics: TidemarkMetrics;
  /**
   * Bearer tokens accepted; undefined = authentication off (`--insecure-no-auth`).
   * An empty list is refused by createApp: it would lock every route.
   */
  readonly apiTokens: readonly string[] | undefined;
}

/** What the HTTP app needs from the process hosting it. */
export interface ServerServices extends SystemServices {
  /**
   * Queues a run of a stored job for the workers. With an `idempotencyKey`, a repeat of an
   * earlier request answers that request's run (`replayed`) instead of queuing another.
   */
  requestRun(
    job: JobRecord,
    options: RunRequestOptions,
    idempotencyKey?: string,
  ): Promise<QueuedRun & { replayed?: boolean }>;
  /** A requested run not started yet, by the run id requestRun promised. */
  findRequestedRun(runId: string): Promise<RequestedRun | undefined>;
}
