import type { Registry as PromRegistry } from "prom-client";
import type { z } from "zod";
import type { EnvOverride } from "../../infra/config/env-overrides.ts";
import type { PipelineSettingsSpec, SettingsBase } from "../../infra/config/pipeline-settings.ts";
import type { MigrationScope } from "../../infra/db/migrator.ts";
import type { CommandGroupSpec, CommandSpec } from "./command-spec.ts";
import type { JobContext } from "./job-context.ts";
import type { PanelSpec } from "./panel-spec.ts";
import type { MetricsServices, PipelineServices } from "./pipeline-services.ts";
import type { QueueHandlerDefinition } from "./queue-handler-definition.ts";
import type { RouteSpec } from "./route-spec.ts";

/** What a run reports back; stored as the run's summary. */
export interface JobResult {
  /** Default `succeeded`. `skipped` = nothing to do; `failed` = a handled, recorded failure. */
  status?: "succeeded" | "skipped" | "failed";
  summary: Record<string, unknown>;
  /** Why the run failed or was skipped (one line). */
  message?: string;
  /**
   * A failed run caused by the user's configuration (a missing or invalid setting or file): 2,
   * the exit code `tidemark run` then gives, as for any usage or config error. Default 1.
   */
  exitCode?: 1 | 2;
}

/** A kind of work a pipeline offers, e.g. `books.run`. */
export interface JobType<P = unknown> {
  /** `<pipeline>.<kind>`. */
  readonly name: string;
  readonly description: string;
  /** Validates params on add, update and run. */
  readonly params: z.ZodType<P>;
  /** Ready-to-use params that validate: shown by `tidemark job describe`, checked by the conformance suite. */
  readonly example: Record<string, unknown>;
  /** Lease key that makes runs exclusive; default `job:<jobName>`. */
  leaseKey?(jobName: string, params: P): string;
  /**
   * Prefix of this type's run ids (default: the job name), e.g. the supplier for snapshots, so
   * the id a pipeline writes into its own records is the run's id.
   */
  runIdPrefix?(jobName: string, params: P): string;
  /** Human lines describing a run's summary (`tidemark run`); default: aligned key/value lines. */
  summaryLines?(summary: Record<string, unknown>): string[];
  /** Does the work. Method syntax on purpose: keeps JobType<P> assignable to JobType<unknown>. */
  run(ctx: JobContext, params: P): Promise<JobResult>;
}

/** One run a demo asks for (`DemoContext.runJob`). */
export interface DemoRunRequest {
  /** The job's name (it need not be stored). */
  readonly job: string;
  /** The job type, e.g. `books.run`. */
  readonly type: string;
  /** Default `{}`. */
  readonly params?: Record<string, unknown>;
  /**
   * The pipeline's `pipelines.<name>` section for this run only (e.g. the fake's URL), validated
   * with the pipeline's schema like the configured one; default: the configured settings.
   */
  readonly settings?: Record<string, unknown>;
  /** Environment variables for this run only (e.g. the fake's credentials). */
  readonly environ?: Readonly<Record<string, string>>;
}

/** How a demo's run ended. */
export interface DemoRunResult {
  readonly runId: string;
  readonly status: string;
  readonly summary: Record<string, unknown>;
  /** Why the run failed (one line); absent when it did not. */
  readonly error?: string;
}

/** What a demo gets: a fresh data directory and a way to report what happened. */
export interface DemoContext {
  /** The pipeline's services on the demo's fresh database (its settings included). */
  services: PipelineServices;
  /** Runs one of the pipeline's job types now, in this process, and says how it ended. */
  runJob(request: DemoRunRequest): Promise<DemoRunResult>;
  dataDir: string;
  print(line: string): void;
  /** A command line the user can copy to look at the demo's data: `command("runs ls")`. */
  command(args: string): string;
}

/** Where `tidemark fake <pipeline>` asks a fake to listen (and keep files). */
export interface FakeOptions {
  /** 0 = any free port. */
  port: number;
  host: string;
  /** The data directory of the configuration in effect (for fakes that drop files). */
  dataDir: string;
  /** Reports what the fake sees (a mail captured, a file dropped). */
  print(line: string): void;
}

/** A running fake: the variables that point Tidemark at it, and how to stop it. */
export interface RunningFake {
  /** e.g. `{ TIDEMARK_GOOGLE_BOOKS_URL: "http://127.0.0.1:4010" }`. */
  readonly env: Readonly<Record<string, string>>;
  /** What to try next, one line each (printed after the variables). */
  readonly hints: readonly string[];
  close(): Promise<void>;
}

/** A pipeline's local stand-in for its outside source (`tidemark fake <pipeline>`). */
export interface FakeDefinition {
  readonly description: string;
  start(options: FakeOptions): Promise<RunningFake>;
}

/** One pipeline: its job types, tables, settings, and optional commands, routes, fake and demo. */
export interface PipelineDefinition {
  /** Folder name under src/pipelines, e.g. `books`. */
  readonly name: string;
  readonly description: string;
  readonly jobTypes: readonly JobType[];
  /** `pipelines.<name>` in tidemark.yaml: validated once at config load; jobs get `ctx.settings`. */
  readonly settings?: PipelineSettingsSpec;
  /** The pipeline's queue consumers (queues `<pipeline>.<name>` or `<pipeline>-<name>`), run by `tidemark worker`. */
  readonly queueHandlers?: readonly QueueHandlerDefinition[];
  /** The pipeline's migrations, loaded lazily; they run after the engine's. */
  readonly migrations?: MigrationScope["migrations"];
  /** Command groups the pipeline adds (`tidemark snapshots`), with their help line. */
  readonly commandGroups?: readonly CommandGroupSpec[];
  /** The pipeline's commands (plain descriptors; the CLI mounts them). */
  readonly commands?: readonly CommandSpec[];
  /** The pipeline's HTTP routes, mounted by `tidemark serve` under `/api/<name>`. */
  readonly routes?: readonly RouteSpec[];
  /** The pipeline's dashboard panel (`/ui/pipelines/<name>`), its implementation loaded lazily. */
  readonly panel?: PanelSpec;
  /** Registers the pipeline's Prometheus metrics (read on scrape) on the process's registry. */
  metrics?(register: PromRegistry, services: MetricsServices): Promise<void>;
  /** The pipeline's fake source, started standalone by `tidemark fake <name>`. */
  readonly fake?: FakeDefinition;
  /** Runs the pipeline against its fake and prints what happened (`tidemark demo`). */
  demo?(ctx: DemoContext): Promise<void>;
}

/**
 * Declares a job type with params inferred from its zod schema; `settings` (the pipeline's
 * settings spec) types `ctx.settings`.
 */
export function defineJobType<S extends z.ZodType, T = unknown>(def: {
  name: string;
  description: string;
  params: S;
  example: Record<string, unknown>;
  settings?: PipelineSettingsSpec<T>;
  leaseKey?: (jobName: string, params: z.output<S>) => string;
  runIdPrefix?: (jobName: string, params: z.output<S>) => string;
  summaryLines?: (summary: Record<string, unknown>) => string[];
  run: (ctx: JobContext<T>, params: z.output<S>) => Promise<JobResult>;
}): JobType<z.output<S>> {
  return def as unknown as JobType<z.output<S>>;
}

/** Declares a settings spec with the resolved type inferred from its resolver. */
export function defineSettings<S extends z.ZodType, T = z.output<S>>(spec: {
  schema: S;
  env?: readonly EnvOverride[];
  resolve?: (parsed: z.output<S>, base: SettingsBase) => T;
}): PipelineSettingsSpec<T> {
  return spec;
}

/** Declares a pipeline (identity function, for type checking). */
export function definePipeline(def: PipelineDefinition): PipelineDefinition {
  return def;
}
