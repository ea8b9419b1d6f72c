import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import type { MessageFinish, Queue, QueueMessage } from "../queue/queue.ts";
import { PermanentQueueError } from "../queue/queue-errors.ts";
import type { PipelineServices } from "../registry/pipeline-services.ts";
import {
  type QueueHandlerContext,
  type QueueHandlerDefinition,
  sendBatchTo,
  sendTo,
} from "../registry/queue-handler-definition.ts";

/** How `drainQueue` works the queue. */
export interface DrainOptions<P> {
  /** Messages handled at once (default 4). */
  readonly concurrency?: number;
  /** Gives up (throws, naming the queue's counts) after this long; default 60 s. */
  readonly timeoutMs?: number;
  /** Called while nothing is active (a test moves a manual clock past retry backoffs here). */
  readonly tick?: () => void;
  /** Handles each message instead of the handler's own `handle` (e.g. with a test client). */
  readonly handle?: (ctx: QueueHandlerContext, payload: P) => Promise<void>;
}

/** What a drain handled: a message whose deferred work failed counts as failed. */
export interface DrainReport {
  handled: number;
  failed: number;
}

/**
 * Works one queue handler's queue in this process until nothing is queued or active, then
 * stops the queue's workers: for a demo, or a test that starts no worker process. Each message
 * is validated and handled as a worker would (an invalid payload is dead-lettered at once; a
 * throw is retried with the handler's backoff), with `services` as the handler's services and
 * its sends going to `queue`.
 */
export async function drainQueue<P, I>(
  services: PipelineServices,
  queue: Queue,
  handler: QueueHandlerDefinition<P, I>,
  options: DrainOptions<P> = {},
): Promise<DrainReport> {
  const report: DrainReport = { handled: 0, failed: 0 };
  const handle = options.handle ?? ((ctx, payload) => handler.handle(ctx, payload));
  await queue.work(
    handler.name,
    { ...handler.work, concurrency: options.concurrency ?? 4, pollIntervalMs: 20 },
    async (message, signal, finish) => {
      const parsed = handler.payload.safeParse(message.payload);
      if (!parsed.success) {
        report.failed++;
        const where = `queue ${handler.name} message ${message.id}`;
        throw new PermanentQueueError(formatZodIssues(where, parsed.error, message.payload));
      }
      const counted: MessageFinish = {
        defer: (work) =>
          finish.defer(
            work.catch((err: unknown) => {
              report.handled--;
              report.failed++;
              throw err;
            }),
          ),
      };
      try {
        await handle(handlerContext(services, queue, message, signal, counted), parsed.data);
        report.handled++;
      } catch (err) {
        report.failed++;
        throw err;
      }
    },
  );
  try {
    await untilIdle(queue, handler.name, options);
    return report;
  } finally {
    await queue.stop();
  }
}

async function untilIdle(
  queue: Queue,
  name: string,
  options: { timeoutMs?: number; tick?: () => void },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const stats = (await queue.stats()).find((s) => s.queue === name);
    if (!stats || stats.queued + stats.active === 0) return;
    if (Date.now() > deadline)
      throw new Error(`queue ${name} not drained: ${JSON.stringify(stats)}`);
    if (stats.active === 0) options.tick?.();
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The context a worker would give the message, built from the pipeline's services. */
function handlerContext(
  services: PipelineServices,
  queue: Queue,
  message: QueueMessage<unknown>,
  signal: AbortSignal,
  finish: MessageFinish,
): QueueHandlerContext {
  const logger = services.logger.child({
    queue: message.queue,
    message_id: message.id,
    attempt: message.attempt,
  });
  return {
    services: {
      ...services,
      logger,
      send: (h, p, o) => sendTo(queue, h, p, o),
      sendBatch: (h, items) => sendBatchTo(queue, h, items),
    },
    env: services.config.env,
    config: services.config,
    db: services.db,
    blobs: services.blobs,
    clock: services.clock,
    leases: services.leases,
    queue,
    message,
    logger,
    signal,
    defer: (work) => finish.defer(work),
  };
}
