import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Command } from "commander";
import type { Registry as PromRegistry } from "prom-client";
import type { z } from "zod";
import type { MigrationScope } from "../../infra/db/migrator.ts";
import type { JobContext } from "../context/job-context.ts";
import type { Queue } from "../queue/queue.ts";
import type { QueueHandlerDefinition } from "../queue/queue-handler-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";

/** What a run reports back; stored as the run's summary. */
export interface JobResult {
  /** Default `succeeded`. `skipped` = nothing to do; `failed` = a handled, recorded failure. */
  status?: "succeeded" | "skipped" | "failed";
  summary: Record<string, unknown>;
  /** Why the run failed or was skipped (one line). */
  message?: string;
}

/** A kind of work a pipeline offers, e.g. `books.run`. */
export interface JobType<P = unknown> {
  /** `<pipeline>.<kind>`. */
  readonly name: string;
  readonly description: string;
  /** Validates params on add, update and run. */
  readonly params: z.ZodType<P>;
  /** Lease key that makes runs exclusive; default `job:<jobName>`. */
  leaseKey?(jobName: string, params: P): string;
  /** Does the work. Method syntax on purpose: keeps JobType<P> assignable to JobType<unknown>. */
  run(ctx: JobContext, params: P): Promise<JobResult>;
}

/** Services a pipeline's CLI commands can use; the runtime opens (and migrates) lazily. */
export interface CliServices {
  runtime(): Promise<Runtime>;
  /** Writes a line to standard output. */
  print(line: string): void;
  /**
   * Streams text to standard output, waiting while the reader is slow; resolves false once the
   * reader has gone (e.g. `| head`), when the command should stop producing.
   */
  write(text: string): Promise<boolean>;
}

/** Services a pipeline's HTTP routes can use (`tidemark serve`). */
export interface RouteServices {
  readonly runtime: Runtime;
  /** The process's queue (undefined when none is open). */
  readonly queue: Queue | undefined;
}

/** What a demo gets: a fresh data directory and a way to report what happened. */
export interface DemoContext {
  runtime: Runtime;
  dataDir: string;
  print(line: string): void;
}

/** One pipeline: its job types, tables, and optional CLI commands and demo. */
export interface PipelineDefinition {
  /** Folder name under src/pipelines, e.g. `books`. */
  readonly name: string;
  readonly description: string;
  readonly jobTypes: readonly JobType[];
  /** The pipeline's queue consumers (queues `<pipeline>.<name>`), run by `tidemark worker`. */
  readonly queueHandlers?: readonly QueueHandlerDefinition[];
  /** The pipeline's migrations, loaded lazily; they run after the engine's. */
  readonly migrations?: MigrationScope["migrations"];
  /** Adds the pipeline's command group (e.g. `tidemark snapshots …`). */
  cli?(program: Command, services: CliServices): void;
  /** Runs the pipeline against its fake and prints what happened (`tidemark demo`). */
  demo?(ctx: DemoContext): Promise<void>;
  /**
   * Adds the pipeline's HTTP routes to `app`, which `tidemark serve` mounts at
   * `/api/<pipeline name>` behind the API's bearer auth; OpenAPI routes (`app.openapi`)
   * appear in /openapi.json. Import route code lazily inside handlers to keep this light.
   */
  routes?(app: OpenAPIHono, services: RouteServices): void;
  /** Registers the pipeline's Prometheus metrics (read on scrape) on the process's registry. */
  metrics?(register: PromRegistry, runtime: Runtime): Promise<void>;
}

/** Declares a job type with params inferred from its zod schema. */
export function defineJobType<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  leaseKey?: (jobName: string, params: z.output<S>) => string;
  run: (ctx: JobContext, params: z.output<S>) => Promise<JobResult>;
}): JobType<z.output<S>> {
  return def as JobType<z.output<S>>;
}

/** Declares a pipeline (identity function, for type checking). */
export function definePipeline(def: PipelineDefinition): PipelineDefinition {
  return def;
}
