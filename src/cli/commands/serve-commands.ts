import { type Command, InvalidArgumentError } from "commander";
import { UsageError } from "../../engine/errors.ts";
import { checkQueueNames, collectQueueHandlers } from "../../engine/workers/index.ts";
import { DEFAULT_SERVER_SETTINGS } from "../../infra/config/load-config.ts";
import { DEMO_DISABLED_REASON, isDemoFolder } from "../../infra/demo/demo-folder.ts";
import { positiveInt } from "../option-parsers.ts";
import type { CliSession } from "../session.ts";
import { drainUntilEmpty } from "./worker-drain-command.ts";

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** `--queue` names checked against the registry's queues, before anything is opened. */
function checkQueues(session: CliSession, names: string[] | undefined): void {
  const known = collectQueueHandlers(session.registry).map((h) => h.name);
  checkQueueNames(known, names);
}

/** --concurrency and --queue of `serve` and `worker`. */
export interface WorkerFlags {
  concurrency?: number;
  queue?: string[];
}

/**
 * Runs until SIGTERM/SIGINT, then stops gracefully (`server.shutdown_grace_seconds`); a
 * second signal exits at once (exit 1; leases then expire on their own).
 */
async function runUntilSignal(
  session: CliSession,
  start: () => Promise<{ stop(graceMs: number): Promise<void> }>,
): Promise<void> {
  const logger = await session.logger();
  const { waitForShutdownSignal } = await import("../../server/processes/shutdown-signal.ts");
  // Listening before starting: a signal during startup still stops cleanly.
  const shutdown = waitForShutdownSignal(() => {
    logger.warn("second signal: exiting without waiting for in-flight work");
    process.exit(1);
  });
  try {
    const handle = await start();
    const signal = await shutdown.signal;
    const graceMs = (await session.config()).server.shutdownGraceMs;
    logger.info({ signal, grace_ms: graceMs }, "shutting down");
    await handle.stop(graceMs);
  } finally {
    shutdown.dispose();
  }
}

/** `tidemark serve` (scheduler + workers + HTTP API) and `tidemark worker` (workers only). */
export function registerServeCommands(program: Command, session: CliSession): void {
  registerServeCommand(program, session);
  registerWorkerCommand(program, session);
}

/** `tidemark serve`: the port is bound before the database is opened. */
function registerServeCommand(program: Command, session: CliSession): void {
  program
    .command("serve")
    .description("run the scheduler, workers and HTTP API until SIGTERM/SIGINT")
    .option(
      "--port <n>",
      `port (default server.port, TIDEMARK_PORT, ${DEFAULT_SERVER_SETTINGS.port})`,
      port,
    )
    .option("--host <host>", "interface to bind (default server.host, 127.0.0.1)")
    .option("--insecure-no-auth", "serve the API without bearer tokens (local use only)")
    .option("--no-workers", "do not execute runs in this process (scheduler + API only)")
    .option("--concurrency <n>", "messages handled at once per queue", positiveInt)
    .option("--queue <name...>", "consume only these queues (default: all)")
    .action(
      async (
        opts: WorkerFlags & {
          port?: number;
          host?: string;
          insecureNoAuth?: boolean;
          workers: boolean;
        },
      ) => {
        const { apiTokensOrRefuse, startServe } = await import(
          "../../server/processes/serve-process.ts"
        );
        const config = await session.config();
        // Refused before anything is opened: exit 2 with the reason.
        apiTokensOrRefuse({ config }, opts.insecureNoAuth ?? false);
        checkQueues(session, opts.queue);
        const server = config.server;
        const host = opts.host ?? server.host;
        const port = opts.port ?? server.port;
        // The port before the database: a taken port exits 2 having touched nothing.
        const { bindPort } = await import("../../server/processes/http-listener.ts");
        const listener = await bindPort(host, port);
        const runtime = await session.runtime().catch(async (err: unknown) => {
          await listener.close(0);
          throw err;
        });
        await runUntilSignal(session, async () => {
          const handle = await startServe(runtime, {
            listener,
            host,
            port,
            insecureNoAuth: opts.insecureNoAuth ?? false,
            workers: opts.workers,
            concurrency: opts.concurrency,
            queues: opts.queue,
          });
          session.print(`Listening on ${handle.url}`);
          if (isDemoFolder(config.dataDir)) {
            session.print(`Demo data: its jobs stay disabled (${DEMO_DISABLED_REASON})`);
          }
          return handle;
        });
      },
    );
}

/** `tidemark worker`, or `worker --drain` (work until the queues are empty, then exit). */
function registerWorkerCommand(program: Command, session: CliSession): void {
  program
    .command("worker")
    .description("execute queued runs and pipeline queue messages until SIGTERM/SIGINT")
    .option("--concurrency <n>", "messages handled at once per queue", positiveInt)
    .option("--queue <name...>", "consume only these queues (default: all)")
    .option(
      "--metrics-port <n>",
      "serve this process's /metrics (API tokens) and /healthz on a port (0 = any free one)",
      port,
    )
    .option("--metrics-host <host>", "interface for --metrics-port (default server.host)")
    .option("--insecure-no-auth", "serve /metrics without bearer tokens (local use only)")
    .option(
      "--drain",
      "work until every queue is empty (retries waiting out a backoff included), then exit: 0, or 1 if a message was dead-lettered",
    )
    .action(
      async (
        opts: WorkerFlags & {
          metricsPort?: number;
          metricsHost?: string;
          insecureNoAuth?: boolean;
          drain?: boolean;
        },
      ) => {
        if (opts.drain) {
          if (opts.metricsPort !== undefined) {
            throw new UsageError("worker: --drain cannot be combined with --metrics-port");
          }
          await drainUntilEmpty(session, opts);
          return;
        }
        const { apiTokensOrRefuse } = await import("../../server/processes/serve-process.ts");
        const { startWorkerProcess } = await import("../../server/processes/worker-process.ts");
        const config = await session.config();
        // Refused before anything is opened: exit 2 with the reason.
        checkQueues(session, opts.queue);
        const apiTokens =
          opts.metricsPort === undefined
            ? undefined
            : apiTokensOrRefuse({ config }, opts.insecureNoAuth ?? false);
        const runtime = await session.runtime();
        await runUntilSignal(session, async () => {
          const handle = await startWorkerProcess(runtime, {
            concurrency: opts.concurrency,
            queues: opts.queue,
            metrics:
              opts.metricsPort === undefined
                ? undefined
                : {
                    host: opts.metricsHost ?? config.server.host,
                    port: opts.metricsPort,
                    apiTokens,
                  },
          });
          session.print(`Working on ${handle.queues.join(", ")}`);
          if (handle.metricsUrl) session.print(`Metrics on ${handle.metricsUrl}/metrics`);
          return handle;
        });
      },
    );
}
