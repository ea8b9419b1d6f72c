import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import { UsageError } from "../errors.ts";
import type { MessageFinish, Queue, WorkOptions } from "../queue/queue.ts";
import { PermanentQueueError } from "../queue/queue-errors.ts";
import type { PipelineServices } from "../registry/pipeline-services.ts";
import type { QueueHandlerDefinition } from "../registry/queue-handler-definition.ts";
import type { Registry } from "../registry/registry.ts";
import type { EngineQueueHandlerContext } from "../run-requests/engine-queue-handler.ts";
import { runRequestHandler } from "../run-requests/run-request-handler.ts";
import { pipelineServices } from "../runs/pipeline-services.ts";
import type { Runtime } from "../runtime/runtime.ts";

/**
 * Every queue handler of this build: the engine's (`tidemark.run`) then each pipeline's, in
 * registry order. A pipeline's queue must be named `<pipeline>.<name>` or `<pipeline>-<name>` (so
 * it is always clear whose queue it is); names are unique.
 */
export function collectQueueHandlers(registry: Registry): QueueHandlerDefinition[] {
  const handlers: QueueHandlerDefinition[] = [runRequestHandler as QueueHandlerDefinition];
  const names = new Set(handlers.map((h) => h.name));
  for (const pipeline of registry.pipelines) {
    for (const h of pipeline.queueHandlers ?? []) {
      const owned =
        h.name.startsWith(`${pipeline.name}.`) || h.name.startsWith(`${pipeline.name}-`);
      if (!owned || h.name.length <= pipeline.name.length + 1) {
        throw new Error(
          `queue handler ${h.name} of pipeline ${pipeline.name} must be named ${pipeline.name}.<name> or ${pipeline.name}-<name>`,
        );
      }
      if (names.has(h.name)) throw new Error(`queue handler ${h.name} registered twice`);
      names.add(h.name);
      handlers.push(h);
    }
  }
  return handlers;
}

/** Which handlers to run and how (`tidemark worker --queue …`, tests). */
export interface StartWorkersOptions {
  /** Only these queues (default: every handler given). */
  only?: readonly string[];
  /** Overrides each handler's own work options (e.g. --concurrency). */
  work?: WorkOptions;
}

/** Refuses `--queue` names no handler consumes: a usage error (exit 2) naming the known ones. */
export function checkQueueNames(known: readonly string[], names: readonly string[] | undefined) {
  const unknown = (names ?? []).filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `--queue: unknown queue(s) ${unknown.join(", ")}; known: ${known.join(", ")}`,
    );
  }
}

/**
 * Starts one worker per handler on `queue`: each message's payload is validated (an invalid
 * one is dead-lettered at once) and handle() gets the runtime's services. Returns the names
 * of the queues consumed; `queue.stop()` stops them all.
 */
export async function startQueueWorkers(
  runtime: Runtime,
  queue: Queue,
  handlers: readonly QueueHandlerDefinition[] = collectQueueHandlers(runtime.registry),
  options: StartWorkersOptions = {},
): Promise<string[]> {
  checkQueueNames(
    handlers.map((h) => h.name),
    options.only,
  );
  const chosen = handlers.filter((h) => !options.only || options.only.includes(h.name));
  for (const def of chosen) {
    await queue.work(
      def.name,
      { ...def.work, ...options.work },
      async (message, signal, finish) => {
        const parsed = def.payload.safeParse(message.payload);
        if (!parsed.success) {
          const where = `queue ${def.name} message ${message.id}`;
          throw new PermanentQueueError(formatZodIssues(where, parsed.error, message.payload));
        }
        const logger = runtime.logger.child({
          queue: def.name,
          message_id: message.id,
          attempt: message.attempt,
        });
        const ctx = queueHandlerContext(runtime, queue, { message, signal, finish }, logger);
        await def.handle(ctx, parsed.data);
      },
    );
  }
  return chosen.map((h) => h.name);
}

/** The context a queue handler gets for one message: the runtime's services and the delivery. */
export function queueHandlerContext(
  runtime: Runtime,
  queue: Queue,
  delivery: {
    message: EngineQueueHandlerContext["message"];
    signal: AbortSignal;
    finish: MessageFinish;
  },
  logger: EngineQueueHandlerContext["logger"] = runtime.logger,
): EngineQueueHandlerContext {
  const { message, signal, finish } = delivery;
  let services: PipelineServices | undefined;
  return {
    get services() {
      const owner = runtime.registry.pipelines.find(
        (p) => message.queue.startsWith(`${p.name}.`) || message.queue.startsWith(`${p.name}-`),
      );
      if (!owner) throw new Error(`queue ${message.queue} belongs to no pipeline`);
      services ??= pipelineServices(runtime, owner.name, { queue, logger });
      return services;
    },
    env: runtime.config.env,
    config: runtime.config,
    db: runtime.db,
    blobs: runtime.blobs,
    clock: runtime.clock,
    leases: runtime.leases,
    runtime,
    queue,
    message,
    logger,
    signal,
    defer: (work) => finish.defer(work),
  };
}
