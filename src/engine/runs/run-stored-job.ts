import { JobService } from "../jobs/job-service.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { executeRun, type RunReport, type RunRequest } from "./job-runner.ts";

/** Runs a job stored in `tm_jobs` by name (enabled or not: an explicit run is the user's call). */
export async function runStoredJob(
  runtime: Runtime,
  name: string,
  options: Omit<RunRequest, "jobName" | "jobType" | "params"> = {},
): Promise<RunReport> {
  const job = await new JobService(runtime.db, runtime.registry, runtime.clock).get(name);
  return executeRun(runtime, {
    ...options,
    jobName: job.name,
    jobType: job.type,
    params: job.params,
  });
}
