import { resolvePipelineSettings } from "../../infra/config/pipeline-settings.ts";
import type { DemoRunRequest, DemoRunResult } from "../registry/pipeline-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { executeRun } from "./job-runner.ts";

/**
 * Runs a job type of `pipeline` for its demo. Settings given with the request are validated with
 * the pipeline's schema and used for this run alone; the stored runs are ordinary runs.
 */
export async function runDemoJob(
  runtime: Runtime,
  pipeline: string,
  request: DemoRunRequest,
): Promise<DemoRunResult> {
  const definition = runtime.registry.pipeline(pipeline);
  let used = runtime;
  if (request.settings && definition.settings) {
    const { config } = runtime;
    const resolved = resolvePipelineSettings(
      pipeline,
      definition.settings,
      request.settings,
      runtime.environ,
      config,
    );
    used = {
      ...runtime,
      config: {
        ...config,
        pipelines: { ...config.pipelines, [pipeline]: request.settings },
        settings: { ...config.settings, [pipeline]: resolved },
      },
    };
  }
  const report = await executeRun(used, {
    jobName: request.job,
    jobType: request.type,
    params: request.params ?? {},
  });
  return {
    runId: report.runId,
    status: report.status,
    summary: report.summary,
    ...(report.error ? { error: report.error } : {}),
  };
}
