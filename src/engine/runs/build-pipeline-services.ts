import type { Logger } from "../../infra/logging/logger.ts";
import { JobService } from "../jobs/job-service.ts";
import { parseJobSpec } from "../jobs/job-spec.ts";
import { openQueue } from "../queue/open-queue.ts";
import type { Queue } from "../queue/queue.ts";
import type { PipelineServices } from "../registry/pipeline-services.ts";
import { sendBatchTo, sendTo } from "../registry/queue-handler-definition.ts";
import type { StoredJobs } from "../registry/stored-jobs.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RunReport, RunRequest } from "./job-runner.ts";
import { runJobNow } from "./run-job-now.ts";

/** Makes one run (the runner's executeRun, handed in so this file does not import it). */
export type ExecuteRun = (runtime: Runtime, request: RunRequest) => Promise<RunReport>;

/** Where the services are used from. */
export interface PipelineServicesOptions {
  /** The process's open queue; absent: each send opens the configured queue and closes it. */
  readonly queue?: Queue | undefined;
  /** Default: the runtime's logger. */
  readonly logger?: Logger;
  /** A running job's id: its sends and the queues it opens record their messages as its children. */
  readonly runId?: string;
}

/**
 * The services one pipeline gets of this process's runtime. Its settings are the ones the
 * registry validated once for this configuration (docs/architecture.md, "PipelineServices").
 */
export function buildPipelineServices<S = unknown>(
  runtime: Runtime,
  pipeline: string,
  execute: ExecuteRun,
  options: PipelineServicesOptions = {},
): PipelineServices<S> {
  const definition = runtime.registry.pipeline(pipeline);
  const open = () => openQueue({ ...runtime, runId: options.runId });
  /** The process's open queue, or one opened for this send and closed after it. */
  const withQueue = async <T>(work: (queue: Queue) => Promise<T>): Promise<T> => {
    if (options.queue) return work(options.queue);
    const queue = await open();
    try {
      return await work(queue);
    } finally {
      await queue.close();
    }
  };
  return {
    pipeline,
    db: runtime.db,
    blobs: runtime.blobs,
    logger: options.logger ?? runtime.logger,
    clock: runtime.clock,
    leases: runtime.leases,
    environ: runtime.environ,
    config: runtime.config,
    settings: runtime.registry.settingsFor(runtime.config, definition, runtime.environ) as S,
    jobs: storedJobs(runtime),
    send: (handler, payload, sendOptions) =>
      withQueue((queue) => sendTo(queue, handler, payload, sendOptions)),
    sendBatch: (handler, items) => withQueue((queue) => sendBatchTo(queue, handler, items)),
    openQueue: open,
    runJob: (request) => runJobNow(runtime, pipeline, request, execute),
    reportRunEnded: (event) => runtime.events?.emitRunEnded(event),
    reportHttpRequest: (event) => runtime.events?.emitHttpRequest(event),
  };
}

/** `tm_jobs` through JobService, so a pipeline's jobs are validated like the CLI's. */
function storedJobs(runtime: Runtime): StoredJobs {
  const service = new JobService(runtime.db, runtime.registry, runtime.clock);
  return {
    list: () => service.repo.list(),
    get: (name) => service.repo.get(name),
    validate: (spec) => service.validateSpec(parseJobSpec(spec)),
    add: async (spec) => service.add(parseJobSpec(spec)),
    update: (name, changes) => service.update(name, changes),
  };
}
