import type { Config } from "../../infra/config/load-config.ts";
import {
  type PipelineSettingsSpec,
  resolvePipelineSettings,
} from "../../infra/config/pipeline-settings.ts";
import type { MigrationScope } from "../../infra/db/migrator.ts";
import { UsageError } from "../errors.ts";
import { engineMigrations } from "../migrations/index.ts";
import type { JobType, PipelineDefinition } from "./pipeline-definition.ts";

/** The set of pipelines this build knows; the engine learns about pipelines only here. */
export class Registry {
  readonly #jobTypes = new Map<string, JobType>();
  readonly #pipelineOfType = new Map<string, PipelineDefinition>();
  /** Settings resolved per configuration, environment and pipeline: each is validated once. */
  readonly #settings = new WeakMap<Config, WeakMap<NodeJS.ProcessEnv, Map<string, unknown>>>();

  /**
   * `pluginFiles`: the module each pipeline loaded from `plugins:` came from, by pipeline name
   * (absolute paths), so a configuration written for the user (the demo's) can list them again.
   */
  constructor(
    readonly pipelines: readonly PipelineDefinition[],
    readonly pluginFiles: ReadonlyMap<string, string> = new Map(),
  ) {
    const names = new Set<string>();
    for (const p of pipelines) {
      if (names.has(p.name)) throw new Error(`pipeline ${p.name} registered twice`);
      names.add(p.name);
      for (const t of p.jobTypes) {
        if (this.#jobTypes.has(t.name)) throw new Error(`job type ${t.name} registered twice`);
        this.#jobTypes.set(t.name, t);
        this.#pipelineOfType.set(t.name, p);
      }
    }
  }

  /** Names of every job type, sorted. */
  jobTypeNames(): string[] {
    return [...this.#jobTypes.keys()].sort();
  }

  /** The job type, or a UsageError (exit 2) listing the known types. */
  jobType(name: string): JobType {
    const t = this.#jobTypes.get(name);
    if (!t) {
      const known = this.jobTypeNames();
      throw new UsageError(
        `unknown job type ${JSON.stringify(name)}; known types: ${known.length ? known.join(", ") : "(none: no pipeline is registered)"}`,
      );
    }
    return t;
  }

  /** The pipeline that offers a job type. */
  pipelineOf(jobTypeName: string): PipelineDefinition | undefined {
    return this.#pipelineOfType.get(jobTypeName);
  }

  /** The pipeline of that name, or a UsageError (exit 2) listing the known pipelines. */
  pipeline(
    name: string,
    wanting?: (p: PipelineDefinition) => boolean,
    what = "pipeline",
  ): PipelineDefinition {
    const candidates = this.pipelines.filter((p) => !wanting || wanting(p));
    const found = candidates.find((p) => p.name === name);
    if (found) return found;
    const known = candidates.map((p) => p.name);
    throw new UsageError(
      `unknown ${what} ${JSON.stringify(name)}; known: ${known.length ? known.join(", ") : "(none)"}`,
    );
  }

  /** Every pipeline's settings spec by name, for the config loader (validation at load). */
  settingsSpecs(): Map<string, PipelineSettingsSpec | undefined> {
    return new Map(this.pipelines.map((p) => [p.name, p.settings]));
  }

  /**
   * A pipeline's resolved settings: those validated at config load, or (for a configuration
   * loaded without the registry, as tests do) validated on first use against `environ` and
   * kept for that configuration, so every job, command, route and handler gets the same value.
   */
  settingsFor(config: Config, pipeline: PipelineDefinition, environ: NodeJS.ProcessEnv): unknown {
    if (pipeline.name in config.settings) return config.settings[pipeline.name];
    if (!pipeline.settings) return undefined;
    const byEnviron = this.#settings.get(config) ?? new WeakMap();
    this.#settings.set(config, byEnviron);
    const resolved = byEnviron.get(environ) ?? new Map<string, unknown>();
    byEnviron.set(environ, resolved);
    if (!resolved.has(pipeline.name)) {
      const value = resolvePipelineSettings(
        pipeline.name,
        pipeline.settings,
        config.pipelines[pipeline.name],
        environ,
        config,
      );
      resolved.set(pipeline.name, value);
    }
    return resolved.get(pipeline.name);
  }

  /**
   * Engine migrations first, then the host's (`hostScopes`: the server's tables, which the engine
   * does not know), then each pipeline's, in registry order.
   */
  migrationScopes(hostScopes: readonly MigrationScope[] = []): MigrationScope[] {
    const scopes: MigrationScope[] = [engineMigrations, ...hostScopes];
    for (const p of this.pipelines) {
      if (p.migrations) scopes.push({ name: p.name, migrations: p.migrations });
    }
    return scopes;
  }
}
