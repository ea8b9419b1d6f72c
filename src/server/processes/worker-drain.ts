import type { QueueHandlerDefinition } from "../../engine/registry/queue-handler-definition.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import {
  checkQueueNames,
  collectQueueHandlers,
  deadLettersSince,
  type NewDeadLetters,
  snapshotDeadLetters,
  startQueueWorkers,
  waitUntilDrained,
} from "../../engine/workers/index.ts";
import { openProcessServices, type WorkerOptions } from "./process-services.ts";

/** What `tidemark worker --drain` did. */
export interface DrainReport {
  /** Queues consumed. */
  queues: string[];
  /** Messages this process handled to completion. */
  handled: number;
  /** Handler attempts that failed in this process (retried or dead-lettered). */
  failedAttempts: number;
  /** Dead-lettered during the drain, by any process. */
  dead: NewDeadLetters;
  /** False when `signal` stopped the drain before the queues were empty. */
  drained: boolean;
  durationMs: number;
}

/** Options of drainQueues: the worker's, a stop signal and the depth polling interval. */
export interface DrainOptions extends WorkerOptions {
  /** Stops the drain early (SIGTERM): in-flight messages get the grace period. */
  signal?: AbortSignal;
  graceMs: number;
  pollMs?: number;
  /** How often "draining" is logged at info with the counts so far (default 5 s). */
  progressMs?: number;
}

/**
 * `tidemark worker --drain`: works every queue until none holds a waiting (retries waiting
 * out a backoff included) or active message, then stops. Dead letters are compared with a
 * snapshot taken before the first message was taken.
 */
export async function drainQueues(runtime: Runtime, options: DrainOptions): Promise<DrainReport> {
  const started = performance.now();
  const all = collectQueueHandlers(runtime.registry);
  const known = all.map((h) => h.name);
  // Checked before anything is opened: a typo is a usage error (exit 2), nothing started.
  checkQueueNames(known, options.queues);
  const names = known.filter((n) => !options.queues || options.queues.includes(n));
  const services = await openProcessServices(runtime);
  let handled = 0;
  let failedAttempts = 0;
  const count = (def: QueueHandlerDefinition): QueueHandlerDefinition => ({
    ...def,
    async handle(ctx, payload) {
      try {
        await def.handle(ctx, payload);
        handled++;
      } catch (err) {
        failedAttempts++;
        throw err;
      }
    },
  });
  try {
    const before = await snapshotDeadLetters(services.queue, names);
    const queues = await startQueueWorkers(
      runtime,
      services.queue,
      all.map((h) => count(services.instrument(h))),
      {
        only: options.queues,
        work: options.concurrency ? { concurrency: options.concurrency } : undefined,
      },
    );
    runtime.logger.info({ queues, engine: services.queue.engine }, "worker draining");
    // Long drains are not silent: the counts so far, every few seconds while they move.
    let reported = -1;
    const progress = setInterval(() => {
      if (handled + failedAttempts === reported) return;
      reported = handled + failedAttempts;
      runtime.logger.info({ handled, failed_attempts: failedAttempts }, "draining");
    }, options.progressMs ?? 5_000);
    progress.unref();
    let drained = true;
    try {
      await waitUntilDrained(services.queue, queues, {
        pollMs: options.pollMs,
        signal: options.signal,
      });
    } catch (err) {
      if (!options.signal?.aborted) throw err;
      drained = false;
    }
    clearInterval(progress);
    await services.queue.stop({ graceMs: options.graceMs });
    const dead = await deadLettersSince(services.queue, before);
    return {
      queues,
      handled,
      failedAttempts,
      dead,
      drained,
      durationMs: performance.now() - started,
    };
  } finally {
    await services.close(options.graceMs);
  }
}
