import type { DemoContext } from "../engine/registry/pipeline-definition.ts";
import { pipelineServices, runDemoJob } from "../engine/runs/pipeline-services.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";

/** The context `tidemark demo` gives a pipeline's demo, on a test's runtime. */
export function demoContext(
  runtime: Runtime,
  pipeline: string,
  options: Pick<DemoContext, "dataDir" | "print" | "command">,
): DemoContext {
  return {
    ...options,
    services: pipelineServices(runtime, pipeline),
    runJob: (request) => runDemoJob(runtime, pipeline, request),
  };
}
