import type { DemoRunRequest, DemoRunResult } from "../registry/pipeline-definition.ts";
import type { PipelineServices } from "../registry/pipeline-services.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { buildPipelineServices, type PipelineServicesOptions } from "./build-pipeline-services.ts";
import { executeRun } from "./job-runner.ts";
import { runJobNow } from "./run-job-now.ts";

export type { PipelineServicesOptions } from "./build-pipeline-services.ts";

/**
 * The services one pipeline gets of this process's runtime (a command, a route, the dashboard,
 * a queue worker, a demo); a run's own context builds them with the runner it runs under.
 */
export function pipelineServices<S = unknown>(
  runtime: Runtime,
  pipeline: string,
  options: PipelineServicesOptions = {},
): PipelineServices<S> {
  return buildPipelineServices<S>(runtime, pipeline, executeRun, options);
}

/** A demo's run (`DemoContext.runJob`): a run made now, told as the demo prints it. */
export async function runDemoJob(
  runtime: Runtime,
  pipeline: string,
  request: DemoRunRequest,
): Promise<DemoRunResult> {
  const report = await runJobNow(runtime, pipeline, request, executeRun);
  return {
    runId: report.runId,
    status: report.status,
    summary: report.summary,
    ...(report.error ? { error: report.error } : {}),
  };
}
