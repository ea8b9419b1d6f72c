// A child process running one rakuten job on a given database and data dir (the kill -9 test).

import { Registry } from "../../../src/engine/registry/registry.ts";
import { executeRun } from "../../../src/engine/runs/job-runner.ts";
import { openRuntime } from "../../../src/engine/runtime/open-runtime.ts";
import { loadConfig } from "../../../src/infra/config/load-config.ts";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import { rakutenPipeline } from "../../../src/pipelines/rakuten/index.ts";

/** What the parent asks the child to run. */
export interface ChildPlan {
  databaseUrl: string;
  dataDir: string;
  settings: Record<string, unknown>;
  environ: Record<string, string>;
  jobName: string;
  jobType: string;
  params: Record<string, unknown>;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as ChildPlan;
const config = loadConfig({
  cwd: plan.dataDir,
  env: {
    TIDEMARK_DATA_DIR: plan.dataDir,
    TIDEMARK_DATABASE_URL: plan.databaseUrl,
    TIDEMARK_LOG_LEVEL: "silent",
  },
});
const base = await openRuntime({
  config,
  registry: new Registry([rakutenPipeline]),
  logger: silentLogger(),
});
const runtime = {
  ...base,
  environ: plan.environ,
  config: { ...base.config, pipelines: { ...base.config.pipelines, rakuten: plan.settings } },
};
process.stdout.write("started\n");
const report = await executeRun(runtime, {
  jobName: plan.jobName,
  jobType: plan.jobType,
  params: plan.params,
});
process.stdout.write(`${JSON.stringify({ status: report.status })}\n`);
await base.close();
