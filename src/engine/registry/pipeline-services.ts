import type { z } from "zod";
import type { BlobStore } from "../../infra/blobs/blob-store.ts";
import type { Config } from "../../infra/config/load-config.ts";
import type { Database } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { Clock } from "../clock/clock.ts";
import type { HttpRequestEvent } from "../http/http-client-types.ts";
import type { LeaseStore } from "../leases/lease-store.ts";
import type { Queue, SendOptions } from "../queue/queue.ts";
import type { EndedRun, RunJobReport, RunJobRequest, StoredJobs } from "./stored-jobs.ts";

/** What `send` needs of a queue handler's definition (a `defineQueueHandler` result fits). */
export interface QueueTarget<I> {
  /** The queue. */
  readonly name: string;
  /** Validates the payload before it is sent. */
  readonly payload: z.ZodType<unknown, I>;
  /** The handler's send defaults. */
  readonly send?: SendOptions;
}

/**
 * What a pipeline's jobs, commands, routes, panel and queue handlers get of the engine: the
 * process's database, blob store, logger, clock and leases, this pipeline's settings (validated
 * once, when the configuration is loaded), and a way to send to a queue handler. It names no
 * registry and no runtime, so the pipeline contract does not lead back to the process wiring.
 */
export interface PipelineServices<S = unknown> {
  /** The pipeline's name (`pipelines.<name>` in tidemark.yaml). */
  readonly pipeline: string;
  readonly db: Database;
  readonly blobs: BlobStore;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly leases: LeaseStore;
  /** This pipeline's validated `pipelines.<name>` settings. */
  readonly settings: S;
  /** Environment variables of the invocation (read secrets and URLs here, not process.env). */
  readonly environ: NodeJS.ProcessEnv;
  /**
   * Sends a payload to a queue handler's queue after validating it against the handler's schema
   * (a UsageError names every bad field). Fails when the process opened no queue.
   */
  send<I>(handler: QueueTarget<I>, payload: I, options?: SendOptions): Promise<string | null>;
  /**
   * Sends many payloads to a queue handler's queue in one statement (ids in input order; null
   * for a duplicate of a waiting message dropped), each validated first: nothing is sent when
   * one is invalid.
   */
  sendBatch<I>(
    handler: QueueTarget<I>,
    items: ReadonlyArray<{ payload: I; options?: SendOptions }>,
  ): Promise<Array<string | null>>;
  /**
   * The resolved configuration of the process (environment name, data directory, run and
   * queue settings); a pipeline reads its own section through `settings`.
   */
  readonly config: Config;
  /** The stored jobs (`tm_jobs`), validated like `tidemark job add`. */
  readonly jobs: StoredJobs;
  /**
   * Runs one of the registered job types now, in this process, under its job's lease and
   * recorded like every run; resolves with how it ended (a failed run resolves, it does not
   * throw). Params that fail the job type's schema reject with a UsageError naming the field,
   * before anything is recorded; AlreadyRunningError when another run holds the job's lease.
   */
  runJob(request: RunJobRequest): Promise<RunJobReport>;
  /**
   * Opens the configured queue (embedded or pg-boss) for work `send` does not cover: batches,
   * stats, working a queue in this process (`drainQueue` in `tidemark/kit`). Close it when done.
   * Opened from a job's context, its sends are recorded as that run's children.
   */
  openQueue(): Promise<Queue>;
  /**
   * Tells the failure webhook and the run metrics about something that ended like a run, e.g.
   * a queue message dead-lettered after its last attempt. Never throws.
   */
  reportRunEnded(event: EndedRun): void;
  /**
   * Counts one attempt of an outside request in the process's metrics (`serve` and `worker`
   * export them; elsewhere it does nothing): pass it as your HttpClient's `onRequest`, or call
   * it from yours. Never throws.
   */
  reportHttpRequest(event: HttpRequestEvent): void;
}

/**
 * What a pipeline's metrics read on each scrape: the process's stores and the pipeline's
 * settings (thresholds), without sending or running (a scrape reads and changes nothing).
 */
export type MetricsServices<S = unknown> = Pick<
  PipelineServices<S>,
  "pipeline" | "db" | "blobs" | "logger" | "clock" | "leases" | "environ" | "config" | "settings"
>;
