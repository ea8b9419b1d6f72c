import { resolvePipelineSettings } from "../../infra/config/pipeline-settings.ts";
import { UsageError } from "../errors.ts";
import type { RunJobReport, RunJobRequest } from "../registry/stored-jobs.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RunReport, RunRequest } from "./job-runner.ts";

/**
 * Runs a job type of `pipeline` now, in this process (`PipelineServices.runJob`). Settings and
 * environment variables given with the request are used for this run alone (the settings
 * validated with the pipeline's schema, its environment overrides applied); the stored run is an
 * ordinary run. A job type of another pipeline is refused.
 */
export async function runJobNow(
  runtime: Runtime,
  pipeline: string,
  request: RunJobRequest,
  execute: (runtime: Runtime, request: RunRequest) => Promise<RunReport>,
): Promise<RunJobReport> {
  const definition = runtime.registry.pipeline(pipeline);
  if (!definition.jobTypes.some((t) => t.name === request.type)) {
    throw new UsageError(
      `pipeline ${pipeline} has no job type ${JSON.stringify(request.type)} (runJob runs the pipeline's own)`,
    );
  }
  let used: Runtime = request.environ
    ? { ...runtime, environ: { ...runtime.environ, ...request.environ } }
    : runtime;
  if ((request.settings || request.environ) && definition.settings) {
    const { config } = used;
    const section = request.settings ?? config.pipelines[pipeline] ?? {};
    const resolved = resolvePipelineSettings(
      pipeline,
      definition.settings,
      section,
      used.environ,
      config,
    );
    used = {
      ...used,
      config: {
        ...config,
        pipelines: { ...config.pipelines, [pipeline]: section },
        settings: { ...config.settings, [pipeline]: resolved },
      },
    };
  }
  const { job, type, params, settings: _settings, environ: _environ, ...options } = request;
  return execute(used, { ...options, jobName: job, jobType: type, params: params ?? {} });
}
