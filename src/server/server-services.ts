import type { JobRecord } from "../engine/jobs/job-repo.ts";
import type { TidemarkMetrics } from "../engine/metrics/tidemark-metrics.ts";
import type { Queue } from "../engine/queue/queue.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";

/** A run request accepted onto the queue. */
export interface QueuedRun {
  runId: string;
  messageId: string;
  jobName: string;
  dryRun: boolean;
  limit: number | null;
}

/** A run requested over the API that has not started yet (no `tm_runs` row). */
export interface RequestedRun {
  runId: string;
  jobName: string;
  /** `queued`: waiting for (or being picked up by) a worker; `dead`: the queue gave up. */
  status: "queued" | "dead";
  messageId: string;
  requestedAt: string;
  dryRun: boolean;
  limit: number | null;
  /** Deliveries so far. */
  attempts: number;
  /** Why the last delivery failed (e.g. the job was running), null when none failed. */
  error: string | null;
}

/** Options of a requested run. */
export interface RunRequestOptions {
  dryRun?: boolean;
  limit?: number;
}

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
  /** Queues a run of a stored job for the workers. */
  requestRun(job: JobRecord, options: RunRequestOptions): Promise<QueuedRun>;
  /** A requested run not started yet, by the run id requestRun promised. */
  findRequestedRun(runId: string): Promise<RequestedRun | undefined>;
}
