/**
 * `tidemark`: the pipeline contract. What a pipeline's definition is made of (define*, the
 * command, route and panel specs, the job context, the services a pipeline receives) and the
 * errors whose exit codes the CLI keeps. Nothing here loads a database, HTTP or logging module,
 * so a definition importing only this entry stays cheap to import. The list is written by hand:
 * a name is public because it is listed here (docs/api/tidemark.md documents each one).
 */

export type { Clock } from "../engine/clock/clock.ts";
export {
  AlreadyRunningError,
  ConfigError,
  describeError,
  ExitCode,
  JobFailedError,
  NotFoundError,
  TidemarkError,
  UsageError,
} from "../engine/errors.ts";
export type { Queue, QueueMessage, SendOptions } from "../engine/queue/queue.ts";
export { PermanentQueueError } from "../engine/queue/queue-errors.ts";
export type {
  CliServices,
  CommandArgSpec,
  CommandGroupSpec,
  CommandInput,
  CommandOptionSpec,
  CommandSpec,
} from "../engine/registry/command-spec.ts";
export type { JobContext } from "../engine/registry/job-context.ts";
export type {
  PanelAction,
  PanelActionButton,
  PanelBlock,
  PanelCell,
  PanelChart,
  PanelModule,
  PanelRun,
  PanelServices,
  PanelSpec,
  PanelTone,
  PanelView,
} from "../engine/registry/panel-spec.ts";
export {
  type DemoContext,
  type DemoRunRequest,
  type DemoRunResult,
  defineJobType,
  definePipeline,
  defineSettings,
  type FakeDefinition,
  type FakeOptions,
  type JobResult,
  type JobType,
  type PipelineDefinition,
  type RunningFake,
} from "../engine/registry/pipeline-definition.ts";
export type { MetricsServices, PipelineServices } from "../engine/registry/pipeline-services.ts";
export {
  defineQueueHandler,
  type QueueHandlerContext,
  type QueueHandlerDefinition,
} from "../engine/registry/queue-handler-definition.ts";
export type {
  RouteInput,
  RouteOutput,
  RouteServices,
  RouteSpec,
} from "../engine/registry/route-spec.ts";
export {
  groupedRunChart,
  type RunSeries,
  runOrderChart,
  summaryNumber,
} from "../engine/registry/run-chart.ts";
export type {
  EndedRun,
  RunJobReport,
  RunJobRequest,
  StoredJob,
  StoredJobChanges,
  StoredJobSpec,
  StoredJobs,
} from "../engine/registry/stored-jobs.ts";
export type { EnvOverride, EnvOverrideKind } from "../infra/config/env-overrides.ts";
export type { Config } from "../infra/config/load-config.ts";
export type { PipelineSettingsSpec, SettingsBase } from "../infra/config/pipeline-settings.ts";
/** A scope's migrations named up front, each module loaded when it runs. */
export { lazyMigrations, type MigrationLoader } from "../infra/db/lazy-migrations.ts";
export type { MigrationScope } from "../infra/db/migrator.ts";
export type { Database } from "../infra/db/open-database.ts";
export type { Logger } from "../infra/logging/logger.ts";
/** Masks a credential read from the environment in every log line, error and stored run. */
export { rememberSecret } from "../infra/logging/redact.ts";
