import type { Transaction } from "kysely";
import type { BlobStore } from "../../infra/blobs/blob-store.ts";
import type { Config } from "../../infra/config/load-config.ts";
import type { Database } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { ProgressReporter } from "../../infra/logging/progress.ts";
import type { Clock } from "../clock/clock.ts";
import type { LeaseStore } from "../leases/lease-store.ts";
import type { PipelineServices } from "./pipeline-services.ts";

/** Everything a run receives: its facts, its pipeline's services (settings included), its fence. */
export interface JobContext<S = unknown> extends PipelineServices<S> {
  /** Deployment environment (`dev` | `prod`). */
  readonly env: Config["env"];
  readonly jobName: string;
  readonly jobType: string;
  /** `<job>_<YYYYMMDDTHHMMSSZ>_<rand6>`. */
  readonly runId: string;
  /** Fixed when the run starts: UTC, whole seconds. */
  readonly jobStartAt: Date;
  /** 00:00 UTC of jobStartAt's day: the boundary of "updated today". */
  readonly dayStart: Date;
  readonly dryRun: boolean;
  /** Optional cap on the number of targets processed. */
  readonly limit: number | undefined;
  readonly logger: Logger;
  readonly db: Database;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  /** Aborted when the process is asked to stop or the run's lease is lost. */
  readonly signal: AbortSignal;
  /** Leases for keys below the job (e.g. one per supplier). */
  readonly leases: LeaseStore;
  /**
   * Environment variables of the process that asked for the run (the CLI's, or the worker's):
   * read secrets and URLs here, never from process.env, so in-process callers can set them.
   */
  readonly environ: NodeJS.ProcessEnv;
  /** The resolved configuration (data dir, per-pipeline settings, …). */
  readonly config: Config;
  /** The job's pipeline's validated `pipelines.<name>` settings. */
  readonly settings: S;
  /**
   * Commits an effect under the run's lease (fencing): `effect` runs in a database transaction
   * that first checks, with the lease row locked, that this run still holds its lease with its
   * fencing token; otherwise LeaseLostError and nothing happens. Every cursor, watermark, ledger
   * or state commit goes through here, so a run that lost its lease changes nothing.
   */
  commit<DB, T>(effect: (tx: Transaction<DB>) => Promise<T>): Promise<T>;
  /** A progress bar on a TTY, silent otherwise. */
  progress(label: string, total?: number): ProgressReporter;
}
