import { UsageError } from "../../engine/errors.ts";
import {
  API_REQUESTER,
  findRequestedRun,
  requestRun,
  requestRunOnce,
} from "../../engine/run-requests/index.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import {
  createScheduler,
  type Fire,
  type FireOutcome,
  queueDispatcher,
} from "../../engine/scheduler/index.ts";
import { createApp } from "../app.ts";
import { type BoundListener, bindPort } from "./http-listener.ts";
import { openProcessServices, startWorkers, type WorkerOptions } from "./process-services.ts";

/** Options of `tidemark serve`. */
export interface ServeOptions extends WorkerOptions {
  host: string;
  port: number;
  /** Serve the API without tokens (`--insecure-no-auth`). */
  insecureNoAuth: boolean;
  /** Execute runs in this process too (default true; `--no-workers` = scheduler + API only). */
  workers?: boolean;
  /** The port, already held (`tidemark serve` binds it before opening the database). */
  listener?: BoundListener;
}

/** A running `tidemark serve`. */
export interface ServeHandle {
  readonly url: string;
  /** Queues this process consumes (empty with --no-workers). */
  readonly queues: readonly string[];
  /** Graceful stop: no new requests or fires, in-flight runs get graceMs, leases released. */
  stop(graceMs: number): Promise<void>;
}

/** Refuses to serve an API nobody can authenticate to, unless auth is explicitly off. */
export function apiTokensOrRefuse(runtime: Pick<Runtime, "config">, insecureNoAuth: boolean) {
  if (insecureNoAuth) return undefined;
  const tokens = runtime.config.apiTokens;
  if (tokens.length === 0) {
    throw new UsageError(
      "no API token configured: set api_tokens in tidemark.yaml or TIDEMARK_API_TOKENS " +
        "(comma-separated), or pass --insecure-no-auth for local use",
    );
  }
  return tokens;
}

/**
 * Starts the scheduler, the workers and the HTTP API on one runtime. Scheduled fires queue
 * run requests (so `worker` processes share the load); in pg-boss mode the schedules live in
 * pg-boss. Use the returned handle to stop.
 */
export async function startServe(runtime: Runtime, options: ServeOptions): Promise<ServeHandle> {
  const apiTokens = apiTokensOrRefuse(runtime, options.insecureNoAuth);
  const logger = runtime.logger;
  const pgBoss = runtime.config.queue.engine === "pg-boss";
  // The port first: a taken one fails here, before any queue message or schedule is touched.
  const listener = options.listener ?? (await bindPort(options.host, options.port));
  let services: Awaited<ReturnType<typeof openProcessServices>>;
  try {
    services = await openProcessServices(runtime, { schedule: pgBoss });
  } catch (err) {
    await listener.close(0);
    throw err;
  }
  const { queue, metrics } = services;
  try {
    const queues = options.workers === false ? [] : await startWorkers(runtime, services, options);
    const onOutcome = (fire: Fire, outcome: FireOutcome) =>
      metrics.schedulerFires.inc({ job: fire.job.name, outcome });
    const scheduler = createScheduler({
      runtime,
      queue,
      dispatch: queueDispatcher(runtime, queue),
      settings: runtime.config.scheduler,
      onOutcome,
    });
    await scheduler.start();

    const app = createApp(
      {
        runtime,
        queue,
        metrics,
        apiTokens,
        requestRun: (job, o, key) => {
          const request = { ...o, job, requestedBy: API_REQUESTER };
          return key === undefined
            ? requestRun(runtime, queue, request)
            : requestRunOnce(runtime, queue, request, key);
        },
        findRequestedRun: (runId) => findRequestedRun(runtime, queue, runId),
      },
      logger,
    );
    listener.serve(app);
    if (!apiTokens) {
      logger.warn(
        { host: options.host },
        "HTTP API authentication is OFF (--insecure-no-auth): anyone who can reach it can run jobs",
      );
    }
    logger.info({ url: listener.url, queues, scheduler: scheduler.engine }, "serve started");
    return {
      url: listener.url,
      queues,
      async stop(graceMs) {
        logger.info({ grace_ms: graceMs }, "serve stopping");
        await Promise.all([scheduler.stop(graceMs), listener.close(graceMs)]);
        await services.close(graceMs);
        logger.info("serve stopped");
      },
    };
  } catch (err) {
    await services.close(0);
    await listener.close(0);
    throw err;
  }
}
