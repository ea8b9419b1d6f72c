/**
 * The light part of the engine's public face: what a pipeline's definition needs (define*,
 * contract types, errors, settings). Nothing here loads a database, HTTP or logging module, so
 * `tidemark --help` stays fast; `index.ts` re-exports all of it.
 */

export type { EnvOverride, EnvOverrideKind } from "../infra/config/env-overrides.ts";
export type { Config } from "../infra/config/load-config.ts";
export {
  type PipelineSettingsSpec,
  resolvePipelineSettings,
  type SettingsBase,
} from "../infra/config/pipeline-settings.ts";
export type { MigrationScope } from "../infra/db/migrator.ts";
export type { Database } from "../infra/db/open-database.ts";
export type { Logger } from "../infra/logging/logger.ts";
/** Masks a credential read from the environment in every log line, error and stored run. */
export { rememberSecret } from "../infra/logging/redact.ts";

export type { JobContext } from "./context/job-context.ts";
// Errors and exit codes
export {
  AlreadyRunningError,
  ConfigError,
  describeError,
  ExitCode,
  JobFailedError,
  NotFoundError,
  TidemarkError,
  UsageError,
} from "./errors.ts";
export type { MessageFinish, Queue, QueueMessage, SendOptions } from "./queue/queue.ts";
export { PermanentQueueError } from "./queue/queue-errors.ts";
// Queue consumers and senders
export { sendBatchTo, sendTo } from "./queue/queue-handler-definition.ts";
export type {
  CommandArgSpec,
  CommandGroupSpec,
  CommandInput,
  CommandOptionSpec,
} from "./registry/command-spec.ts";
export type {
  PanelActionButton,
  PanelBlock,
  PanelCell,
  PanelChart,
  PanelRun,
  PanelTone,
  PanelView,
} from "./registry/panel-spec.ts";
// Defining a pipeline
export type {
  DemoRunRequest,
  DemoRunResult,
  FakeDefinition,
  FakeOptions,
  JobResult,
  JobType,
  RunningFake,
} from "./registry/pipeline-definition.ts";
export { defineJobType, defineSettings } from "./registry/pipeline-definition.ts";
export type { MetricsServices, PipelineServices } from "./registry/pipeline-services.ts";
export type { RouteInput, RouteOutput } from "./registry/route-spec.ts";
export {
  groupedRunChart,
  type RunSeries,
  runOrderChart,
  summaryNumber,
} from "./registry/run-chart.ts";
// The contract as the built-in pipelines use it: the public types with the Runtime.
export {
  type CliServices,
  type CommandSpec,
  type DemoContext,
  definePipeline,
  defineQueueHandler,
  type PanelAction,
  type PanelModule,
  type PanelServices,
  type PanelSpec,
  type PipelineDefinition,
  type QueueHandlerContext,
  type QueueHandlerDefinition,
  type RouteServices,
  type RouteSpec,
} from "./runtime/built-in-contract.ts";
export type { Runtime } from "./runtime/runtime.ts";
