import type { MigrationScope } from "../../infra/db/migrator.ts";
import { UsageError } from "../errors.ts";
import { engineMigrations } from "../migrations/index.ts";
import type { JobType, PipelineDefinition } from "./pipeline-definition.ts";

/** The set of pipelines this build knows; the engine learns about pipelines only here. */
export class Registry {
  readonly #jobTypes = new Map<string, JobType>();

  constructor(readonly pipelines: readonly PipelineDefinition[]) {
    const names = new Set<string>();
    for (const p of pipelines) {
      if (names.has(p.name)) throw new Error(`pipeline ${p.name} registered twice`);
      names.add(p.name);
      for (const t of p.jobTypes) {
        if (this.#jobTypes.has(t.name)) throw new Error(`job type ${t.name} registered twice`);
        this.#jobTypes.set(t.name, t);
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

  /** Engine migrations first, then each pipeline's, in registry order. */
  migrationScopes(): MigrationScope[] {
    const scopes: MigrationScope[] = [engineMigrations];
    for (const p of this.pipelines) {
      if (p.migrations) scopes.push({ name: p.name, migrations: p.migrations });
    }
    return scopes;
  }
}
