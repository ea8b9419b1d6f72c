import type { Runtime } from "../../engine/runtime/runtime.ts";
import { createSystemApp } from "../app.ts";
import { type HttpListener, listen } from "./http-listener.ts";
import { openProcessServices, startWorkers, type WorkerOptions } from "./process-services.ts";

/** Where a worker serves its /healthz and /metrics. */
export interface WorkerMetricsOptions {
  host: string;
  port: number;
  /** Tokens for /metrics; undefined = authentication off (`--insecure-no-auth`). */
  apiTokens: readonly string[] | undefined;
}

/** A running `tidemark worker`. */
export interface WorkerHandle {
  /** Queues consumed. */
  readonly queues: readonly string[];
  /** Where /metrics and /healthz answer, when a metrics port was asked for. */
  readonly metricsUrl: string | undefined;
  /** Graceful stop: no new messages, in-flight runs get graceMs, then are released. */
  stop(graceMs: number): Promise<void>;
}

/** Starts workers only (no scheduler, no HTTP): run requests and pipeline queues. */
export async function startWorkerProcess(
  runtime: Runtime,
  options: WorkerOptions & { metrics?: WorkerMetricsOptions } = {},
): Promise<WorkerHandle> {
  const services = await openProcessServices(runtime);
  let listener: HttpListener | undefined;
  try {
    if (options.metrics) {
      const { host, port, apiTokens } = options.metrics;
      const app = createSystemApp(
        { runtime, queue: services.queue, metrics: services.metrics, apiTokens },
        runtime.logger,
      );
      listener = await listen(app, host, port);
      if (!apiTokens) {
        runtime.logger.warn(
          { host },
          "metrics authentication is OFF (--insecure-no-auth): anyone who can reach the port can read them",
        );
      }
    }
    const queues = await startWorkers(runtime, services, options);
    runtime.logger.info(
      { queues, engine: services.queue.engine, metrics: listener?.url },
      "worker started",
    );
    return {
      queues,
      metricsUrl: listener?.url,
      async stop(graceMs) {
        runtime.logger.info({ grace_ms: graceMs }, "worker stopping");
        await Promise.all([services.close(graceMs), listener?.close(graceMs)]);
        runtime.logger.info("worker stopped");
      },
    };
  } catch (err) {
    await listener?.close(0);
    await services.close(0);
    throw err;
  }
}
