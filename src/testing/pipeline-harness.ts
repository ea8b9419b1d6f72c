import type { Clock } from "../engine/clock/clock.ts";
import type { PipelineDefinition } from "../engine/registry/pipeline-definition.ts";
import type { PipelineServices } from "../engine/registry/pipeline-services.ts";
import { Registry } from "../engine/registry/registry.ts";
import { pipelineServices } from "../engine/runs/pipeline-services.ts";
import type { DialectHarness } from "./dialects.ts";
import { type CliResult, runCli } from "./run-cli.ts";
import { openTestRuntime } from "./test-runtime.ts";

/**
 * Runs the CLI in this process with only `pipelines` registered (an outside pipeline under
 * test, as `plugins:` would add it), its own cwd and environment, and captured output.
 */
export function runPipelineCli(
  pipelines: readonly PipelineDefinition[],
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string },
): Promise<CliResult> {
  return runCli(argv, { ...options, registry: new Registry(pipelines) });
}

/**
 * A pipeline's services on a fresh, migrated database of the harness's dialect (the engine's
 * tables and the pipeline's), closed and removed after the test; `settings` is its
 * `pipelines.<name>` section, validated with its schema as tidemark.yaml's would be.
 */
export async function openPipelineServices<S = unknown>(
  h: DialectHarness,
  pipeline: PipelineDefinition,
  options: { clock?: Clock; settings?: Record<string, unknown> } = {},
): Promise<PipelineServices<S>> {
  const runtime = await openTestRuntime(h, {
    registry: new Registry([pipeline]),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const configured = options.settings
    ? {
        ...runtime,
        config: { ...runtime.config, pipelines: { [pipeline.name]: options.settings } },
      }
    : runtime;
  return pipelineServices<S>(configured, pipeline.name);
}
