import type { z } from "zod";
import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import { UsageError } from "../errors.ts";
import type { Queue, QueueMessage, SendOptions, WorkOptions } from "../queue/queue.ts";
import type { JobContext } from "./job-context.ts";
import type { PipelineServices } from "./pipeline-services.ts";

/** What a queue handler receives besides its payload: the engine's services and its message. */
export interface QueueHandlerContext
  extends Pick<JobContext, "env" | "config" | "db" | "blobs" | "clock" | "leases"> {
  /**
   * The services of the pipeline that owns the queue (its settings included); sends go to
   * this worker's queue. Only a pipeline's handler has them.
   */
  readonly services: PipelineServices;
  /** The queue, to fan work out (`sendTo(ctx.queue, otherHandler, payload)`). */
  readonly queue: Queue;
  /** The message being handled (id, attempt, createdAt; payload unvalidated). */
  readonly message: QueueMessage<unknown>;
  /** Bound to queue, message_id and attempt. */
  readonly logger: Logger;
  /** Aborted when the worker stops past its grace period or the message's hold was lost. */
  readonly signal: AbortSignal;
  /**
   * Finishes part of the work after handle() returns (e.g. the database write of a result
   * already fetched): the worker's slot is freed when handle() returns, and the message is
   * completed only once `work` resolves — if it rejects, the message fails and is retried.
   */
  readonly defer: (work: Promise<unknown>) => void;
}

/**
 * A consumer of one queue, declared by a pipeline (`queueHandlers`) or the engine. Throwing
 * fails the message (retried with backoff, then dead-lettered); `PermanentQueueError`
 * dead-letters it at once. Delivery is at least once: make handle() idempotent.
 */
export interface QueueHandlerDefinition<P = unknown, I = P> {
  /** The queue: `<pipeline>.<name>` or `<pipeline>-<name>` (the engine's own: `tidemark.run`). */
  readonly name: string;
  readonly description: string;
  /** Validates each payload (sent as I, handled as P); an invalid one is dead-lettered at once. */
  readonly payload: z.ZodType<P, I>;
  /** How workers consume the queue (concurrency, batch size, poll interval). */
  readonly work?: WorkOptions;
  /** Defaults for messages sent with sendTo() (retries, visibility timeout, …). */
  readonly send?: SendOptions;
  /** Method syntax on purpose: keeps QueueHandlerDefinition<P, I> assignable to <unknown>. */
  handle(ctx: QueueHandlerContext, payload: P): Promise<void>;
}

/** Declares a queue handler with its payload type inferred from the zod schema. */
export function defineQueueHandler<S extends z.ZodType>(def: {
  name: string;
  description: string;
  payload: S;
  work?: WorkOptions;
  send?: SendOptions;
  handle: (ctx: QueueHandlerContext, payload: z.output<S>) => Promise<void>;
}): QueueHandlerDefinition<z.output<S>, z.input<S>> {
  return def as QueueHandlerDefinition<z.output<S>, z.input<S>>;
}

/** What sending needs of a handler's definition: its queue, payload schema and send defaults. */
type SendTarget<P, I> = Pick<QueueHandlerDefinition<P, I>, "name" | "payload" | "send">;

function checkPayload(def: SendTarget<unknown, unknown>, payload: unknown): void {
  const parsed = def.payload.safeParse(payload);
  if (!parsed.success) {
    throw new UsageError(formatZodIssues(`queue ${def.name} payload`, parsed.error, payload));
  }
}

/**
 * Sends to a handler's queue after validating the payload against its schema (a UsageError
 * names every bad field), with the handler's send defaults under `options`.
 */
export async function sendTo<P, I>(
  queue: Queue,
  def: SendTarget<P, I>,
  payload: I,
  options?: SendOptions,
): Promise<string | null> {
  checkPayload(def, payload);
  return queue.send(def.name, payload, { ...def.send, ...options });
}

/** sendTo for many payloads in one batch. */
export async function sendBatchTo<P, I>(
  queue: Queue,
  def: SendTarget<P, I>,
  items: ReadonlyArray<{ payload: I; options?: SendOptions }>,
): Promise<Array<string | null>> {
  for (const item of items) checkPayload(def, item.payload);
  return queue.sendBatch(
    def.name,
    items.map((item) => ({ payload: item.payload, options: { ...def.send, ...item.options } })),
  );
}
