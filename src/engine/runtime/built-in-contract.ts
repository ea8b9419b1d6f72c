/**
 * The pipeline contract as the built-in pipelines still use it: the public types (`tidemark`)
 * widened with the process's whole `Runtime` (and the open queue), which they use to run jobs,
 * look up stored jobs and open the queue. Only `src/engine/index.ts` and `define.ts` export these,
 * under the public names; outside pipelines get the narrow types, and the public contract files
 * never import the runtime (no Runtime → Registry → definition → spec → Runtime loop). Each wide
 * type is assignable to its public one, so a built-in definition registers like any other.
 */
import type { z } from "zod";
import type { Queue, SendOptions, WorkOptions } from "../queue/queue.ts";
import {
  defineQueueHandler as defineAnyQueueHandler,
  type QueueHandlerContext as PublicQueueHandlerContext,
  type QueueHandlerDefinition as PublicQueueHandlerDefinition,
} from "../queue/queue-handler-definition.ts";
import type {
  CommandInput,
  CliServices as PublicCliServices,
  CommandSpec as PublicCommandSpec,
} from "../registry/command-spec.ts";
import type {
  PanelView,
  PanelAction as PublicPanelAction,
  PanelServices as PublicPanelServices,
} from "../registry/panel-spec.ts";
import {
  definePipeline as defineAnyPipeline,
  type DemoContext as PublicDemoContext,
  type PipelineDefinition as PublicPipelineDefinition,
} from "../registry/pipeline-definition.ts";
import type {
  RouteServices as PublicRouteServices,
  RouteSpec as PublicRouteSpec,
  RouteInput,
  RouteOutput,
} from "../registry/route-spec.ts";
import type { Runtime } from "./runtime.ts";

/** A command's services with the runtime, opened (and migrated) on first use. */
export interface CliServices extends PublicCliServices {
  runtime(): Promise<Runtime>;
}

export interface CommandSpec extends Omit<PublicCommandSpec, "action"> {
  action(input: CommandInput, services: CliServices): Promise<void>;
}

/** A route's services with the runtime and the process's queue (undefined when none is open). */
export interface RouteServices extends PublicRouteServices {
  readonly runtime: Runtime;
  readonly queue: Queue | undefined;
}

export interface RouteSpec extends Omit<PublicRouteSpec, "handle"> {
  handle(input: RouteInput, services: RouteServices): Promise<RouteOutput>;
}

export interface PanelServices extends PublicPanelServices, RouteServices {}

export interface PanelAction extends Omit<PublicPanelAction, "run"> {
  run(input: Record<string, unknown>, services: PanelServices): Promise<string>;
}

export interface PanelModule {
  view(services: PanelServices): Promise<PanelView>;
  readonly actions?: Readonly<Record<string, PanelAction>>;
}

export interface PanelSpec {
  readonly title: string;
  load(): Promise<PanelModule>;
}

export interface DemoContext extends PublicDemoContext {
  runtime: Runtime;
}

export interface QueueHandlerContext extends PublicQueueHandlerContext {
  /** The whole runtime (e.g. to call executeRun). */
  readonly runtime: Runtime;
}

export interface QueueHandlerDefinition<P = unknown, I = P>
  extends Omit<PublicQueueHandlerDefinition<P, I>, "handle"> {
  handle(ctx: QueueHandlerContext, payload: P): Promise<void>;
}

/** defineQueueHandler, its handler given the wide context. */
export const defineQueueHandler = defineAnyQueueHandler as unknown as <S extends z.ZodType>(def: {
  name: string;
  description: string;
  payload: S;
  work?: WorkOptions;
  send?: SendOptions;
  handle: (ctx: QueueHandlerContext, payload: z.output<S>) => Promise<void>;
}) => QueueHandlerDefinition<z.output<S>, z.input<S>>;

export interface PipelineDefinition
  extends Omit<
    PublicPipelineDefinition,
    "commands" | "routes" | "panel" | "queueHandlers" | "demo"
  > {
  readonly commands?: readonly CommandSpec[];
  readonly routes?: readonly RouteSpec[];
  readonly panel?: PanelSpec;
  readonly queueHandlers?: readonly QueueHandlerDefinition[];
  demo?(ctx: DemoContext): Promise<void>;
}

/** definePipeline for a built-in pipeline: its wide definition, registered as a public one. */
export const definePipeline = defineAnyPipeline as unknown as (
  def: PipelineDefinition,
) => PipelineDefinition;
