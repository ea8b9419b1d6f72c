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
  const services = pipeline
    ? buildPipelineServices(runtime, pipeline.name, run.execute, {
        logger: run.logger,
        runId: run.runId,
      })
    : undefined;
  const ownServices = () => {
    if (!services) throw new Error(`job type ${run.jobType.name} belongs to no pipeline`);
    return services;
  };
  return {
    pipeline: pipeline?.name ?? "",
    env: runtime.config.env,
    jobName: run.jobName,
    jobType: run.jobType.name,
    runId: run.runId,
    jobStartAt: run.jobStartAt,
    dayStart: utcDayStart(run.jobStartAt),
    dryRun: run.dryRun,
    limit: run.limit,
    logger: run.logger,
    db: runtime.db,
    blobs: runtime.blobs,
    clock: runtime.clock,
    signal: run.signal,
    leases: runtime.leases,
    config: runtime.config,
    settings: services?.settings,
    send: async (handler, payload, options) => ownServices().send(handler, payload, options),
    sendBatch: async (handler, items) => ownServices().sendBatch(handler, items),
    get jobs() {
      return ownServices().jobs;
    },
    runJob: async (request) => ownServices().runJob(request),
    openQueue: async () => ownServices().openQueue(),
    reportRunEnded: (event) => runtime.events?.emitRunEnded(event),
    reportHttpRequest: (event) => runtime.events?.emitHttpRequest(event),
    environ: runtime.environ,
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
