import { LeaseLostError } from "../../infra/errors.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import { createProgress, silentProgress } from "../../infra/logging/progress.ts";
import { utcDayStart } from "../clock/clock.ts";
import type { Lease } from "../leases/lease-store.ts";
import type { JobContext } from "../registry/job-context.ts";
import type { JobType } from "../registry/pipeline-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { buildPipelineServices, type ExecuteRun } from "./build-pipeline-services.ts";
import type { RunProgressRecorder } from "./run-progress.ts";

/** What a run has fixed by the time its job type is called. */
export interface RunFacts {
  jobName: string;
  jobType: JobType;
  runId: string;
  jobStartAt: Date;
  dryRun: boolean;
  limit: number | undefined;
  lease: Lease;
  leaseTtlMs: number;
  signal: AbortSignal;
  logger: Logger;
  /** Draw a progress bar on a TTY. */
  progress: boolean;
  /** Stores the run's progress in its row (the dashboard shows it); absent: not stored. */
  recorder?: RunProgressRecorder;
  /** Told when a commit found the lease lost, even if the job then catches the error. */
  onLeaseLost?: (err: LeaseLostError) => void;
  /** Makes the runs the job asks for with `runJob` (the runner's executeRun). */
  execute: ExecuteRun;
}

/** The context a job type's run() receives: the engine's services, its settings, its fence. */
export function newJobContext(runtime: Runtime, run: RunFacts): JobContext {
  const pipeline = runtime.registry.pipelineOf(run.jobType.name);
  // Every registered job type comes from a pipeline's definition.
  if (!pipeline) throw new Error(`job type ${run.jobType.name} belongs to no pipeline`);
  const services = buildPipelineServices(runtime, pipeline.name, run.execute, {
    logger: run.logger,
    runId: run.runId,
  });
  return {
    ...services,
    env: runtime.config.env,
    jobName: run.jobName,
    jobType: run.jobType.name,
    runId: run.runId,
    jobStartAt: run.jobStartAt,
    dayStart: utcDayStart(run.jobStartAt),
    dryRun: run.dryRun,
    limit: run.limit,
    signal: run.signal,
    commit: async (effect) => {
      try {
        return await runtime.leases.fencedCommit(run.lease, run.leaseTtlMs, effect);
      } catch (err) {
        // The runner must know even when the job counts this as one failed batch and goes on.
        if (err instanceof LeaseLostError) run.onLeaseLost?.(err);
        throw err;
      }
    },
    progress: (label, total) => {
      const bar = run.progress ? createProgress(label, total) : silentProgress();
      return run.recorder ? run.recorder.reporter(label, total, bar) : bar;
    },
  };
}
