import { isoTimestamp } from "../../engine/clock/clock.ts";
import { describeError } from "../../engine/errors.ts";
import { TidemarkMetrics } from "../../engine/metrics/tidemark-metrics.ts";
import { openQueue } from "../../engine/queue/open-queue.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import type { QueueHandlerDefinition } from "../../engine/registry/queue-handler-definition.ts";
import { pipelineServices } from "../../engine/runs/pipeline-services.ts";
import { RunRepo } from "../../engine/runs/run-repo.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { collectQueueHandlers, startQueueWorkers } from "../../engine/workers/queue-workers.ts";

/** What `serve` and `worker` share: the queue, the process's metrics, housekeeping. */
export interface ProcessServices {
  readonly queue: Queue;
  readonly metrics: TidemarkMetrics;
  /** Wraps a queue handler to count its retries. */
  instrument(def: QueueHandlerDefinition): QueueHandlerDefinition;
  /**
   * Stops the workers (in-flight runs get graceMs; aborted ones still record their run and
   * release their lease before stop() returns), then closes the queue.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Opens the configured queue and the process's metrics (runs, run history, queue depth,
 * source-client requests the pipelines report through their services), and sweeps abandoned runs every
 * scheduler reload period so their failure notifications go out even when nothing else runs.
 */
export async function openProcessServices(
  runtime: Runtime,
  options: { schedule?: boolean } = {},
): Promise<ProcessServices> {
  const logger = runtime.logger;
  const queue = await openQueue(runtime, { schedule: options.schedule });
  const metrics = new TidemarkMetrics({ defaultMetrics: true, logger });
  const unobserve = runtime.events ? metrics.observeRuns(runtime.events) : () => {};
  metrics.watchQueue(queue);
  metrics.watchRunHistory(runtime.db, logger);
  for (const pipeline of runtime.registry.pipelines) {
    await pipeline.metrics?.(metrics.registry, pipelineServices(runtime, pipeline.name, { queue }));
  }
  // The pipelines' outside requests (their clients report each attempt through their services).
  const unhook = runtime.events?.onHttpRequest((event) => metrics.recordHttp(event)) ?? (() => {});
  const sweepMs = runtime.config.scheduler.reloadMs;
  const sweep = setInterval(() => {
    new RunRepo(runtime.db, runtime.events)
      .markAbandoned(isoTimestamp(runtime.clock.now()))
      .catch((err: unknown) =>
        logger.warn({ error: describeError(err) }, "abandoned-run sweep failed"),
      );
  }, sweepMs);
  sweep.unref();
  let closed = false;
  return {
    queue,
    metrics,
    instrument(def) {
      return {
        ...def,
        handle(ctx, payload) {
          if (ctx.message.attempt > 1) metrics.queueRetries.inc({ queue: def.name });
          return def.handle(ctx, payload);
        },
      };
    },
    async close(graceMs) {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      try {
        await queue.stop({ graceMs });
        await queue.close();
      } finally {
        unhook();
        unobserve();
      }
    },
  };
}

/** Options of the workers of `serve` and `worker`. */
export interface WorkerOptions {
  /** Messages handled at once per queue (default: each handler's own). */
  concurrency?: number;
  /** Only these queues (default: all). */
  queues?: readonly string[];
}

/**
 * Starts a worker on every queue handler (the engine's `tidemark.run` and every pipeline's); returns the queues consumed.
 */
export function startWorkers(
  runtime: Runtime,
  services: ProcessServices,
  options: WorkerOptions = {},
): Promise<string[]> {
  const handlers = collectQueueHandlers(runtime.registry).map((h) => services.instrument(h));
  return startQueueWorkers(runtime, services.queue, handlers, {
    only: options.queues,
    work: options.concurrency ? { concurrency: options.concurrency } : undefined,
  });
}
