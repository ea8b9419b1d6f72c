import type { Runtime } from "../../engine/runtime/runtime.ts";
import { openProcessServices, startWorkers, type WorkerOptions } from "./process-services.ts";

/** A running `tidemark worker`. */
export interface WorkerHandle {
  /** Queues consumed. */
  readonly queues: readonly string[];
  /** Graceful stop: no new messages, in-flight runs get graceMs, then are released. */
  stop(graceMs: number): Promise<void>;
}

/** Starts workers only (no scheduler, no HTTP): run requests and pipeline queues. */
export async function startWorkerProcess(
  runtime: Runtime,
  options: WorkerOptions = {},
): Promise<WorkerHandle> {
  const services = await openProcessServices(runtime);
  try {
    const queues = await startWorkers(runtime, services, options);
    runtime.logger.info({ queues, engine: services.queue.engine }, "worker started");
    return {
      queues,
      async stop(graceMs) {
        runtime.logger.info({ grace_ms: graceMs }, "worker stopping");
        await services.close(graceMs);
        runtime.logger.info("worker stopped");
      },
    };
  } catch (err) {
    await services.close(0);
    throw err;
  }
}
