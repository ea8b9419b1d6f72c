/**
 * The engine's own queue handlers (`tidemark.run`) get the process's whole `Runtime` besides
 * what a pipeline's handler gets: they run stored jobs and read the engine's tables. Every
 * handler receives this context; a pipeline's handler is typed with the public one, which it
 * extends, so pipelines never see the runtime.
 */
import type { z } from "zod";
import type { SendOptions, WorkOptions } from "../queue/queue.ts";
import {
  defineQueueHandler as definePublicQueueHandler,
  type QueueHandlerContext,
  type QueueHandlerDefinition,
} from "../registry/queue-handler-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";

/** A handler's context with the runtime (what the workers build for every message). */
export interface EngineQueueHandlerContext extends QueueHandlerContext {
  readonly runtime: Runtime;
}

/** defineQueueHandler for an engine handler: its `handle` is given the runtime too. */
export const defineEngineQueueHandler = definePublicQueueHandler as unknown as <
  S extends z.ZodType,
>(def: {
  name: string;
  description: string;
  payload: S;
  work?: WorkOptions;
  send?: SendOptions;
  handle: (ctx: EngineQueueHandlerContext, payload: z.output<S>) => Promise<void>;
}) => QueueHandlerDefinition<z.output<S>, z.input<S>>;
