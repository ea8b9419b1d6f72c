import type { CliSession } from "../session.ts";
import type { WorkerFlags } from "./serve-commands.ts";

/** Dead letters listed by name before "… and N more". */
const LISTED_DEAD = 20;

/**
 * `tidemark worker --drain`: works every queue until none holds a waiting or active message,
 * then exits 0, or 1 when a message was dead-lettered meanwhile (or a signal cut it short).
 */
export async function drainUntilEmpty(session: CliSession, opts: WorkerFlags): Promise<void> {
  const logger = await session.logger();
  const { waitForShutdownSignal } = await import("../../server/processes/shutdown-signal.ts");
  const { drainQueues } = await import("../../server/processes/worker-drain.ts");
  const config = await session.config();
  const runtime = await session.runtime();
  const stop = new AbortController();
  const shutdown = waitForShutdownSignal(() => {
    logger.warn("second signal: exiting without waiting for in-flight work");
    process.exit(1);
  });
  void shutdown.signal.then((sig) => {
    logger.info({ signal: sig }, "drain interrupted");
    stop.abort(new Error(`interrupted by ${sig}`));
  });
  try {
    const report = await drainQueues(runtime, {
      concurrency: opts.concurrency,
      queues: opts.queue,
      signal: stop.signal,
      graceMs: config.server.shutdownGraceMs,
    });
    const seconds = (report.durationMs / 1000).toFixed(1);
    session.print(
      `${report.drained ? "Drained" : "Interrupted while draining"} ${report.queues.join(", ")} in ${seconds} s: ` +
        `${report.handled} message(s) handled, ${report.failedAttempts} failed attempt(s), ` +
        `${report.dead.count} dead-lettered.`,
    );
    for (const m of report.dead.messages.slice(0, LISTED_DEAD)) {
      session.print(`  dead: ${m.queue} ${m.id}: ${m.lastError ?? "(no error recorded)"}`);
    }
    if (report.dead.count > LISTED_DEAD) {
      session.print(
        `  … and ${report.dead.count - LISTED_DEAD} more (tidemark queue dead <queue>)`,
      );
    }
    if (report.dead.count > 0 || !report.drained) session.exitCode = 1;
  } finally {
    shutdown.dispose();
  }
}
