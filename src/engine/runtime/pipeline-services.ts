import type { Logger } from "../../infra/logging/logger.ts";
import { openQueue } from "../queue/open-queue.ts";
import type { Queue } from "../queue/queue.ts";
import { sendTo } from "../queue/queue-handler-definition.ts";
import type { PipelineServices } from "../registry/pipeline-services.ts";
import type { Runtime } from "./runtime.ts";

/** Where the services are used from. */
export interface PipelineServicesOptions {
  /** The process's open queue; absent: each send opens the configured queue and closes it. */
  readonly queue?: Queue | undefined;
  /** Default: the runtime's logger. */
  readonly logger?: Logger;
  /** A running job's id: its sends are recorded as that run's children. */
  readonly runId?: string;
}

/**
 * The services one pipeline gets of this process's runtime. Its settings are the ones the
 * registry validated once for this configuration (docs/architecture.md, "PipelineServices").
 */
export function pipelineServices<S = unknown>(
  runtime: Runtime,
  pipeline: string,
  options: PipelineServicesOptions = {},
): PipelineServices<S> {
  const definition = runtime.registry.pipeline(pipeline);
  return {
    pipeline,
    db: runtime.db,
    blobs: runtime.blobs,
    logger: options.logger ?? runtime.logger,
    clock: runtime.clock,
    leases: runtime.leases,
    environ: runtime.environ,
    settings: runtime.registry.settingsFor(runtime.config, definition, runtime.environ) as S,
    send: async (handler, payload, sendOptions) => {
      if (options.queue) return sendTo(options.queue, handler, payload, sendOptions);
      const queue = await openQueue({ ...runtime, runId: options.runId });
      try {
        return await sendTo(queue, handler, payload, sendOptions);
      } finally {
        await queue.close();
      }
    },
  };
}
