import type { EngineTables } from "../../../engine/engine-tables.ts";
import type { Queue } from "../../../engine/queue/queue.ts";
import type { PanelRun, PanelServices } from "../../../engine/registry/panel-spec.ts";
import { pipelineServices } from "../../../engine/runs/pipeline-services.ts";
import type { Runtime } from "../../../engine/runtime/runtime.ts";
import { typed } from "../../../infra/db/open-database.ts";

/** Most runs a panel may ask for at once. */
const MAX_RUNS = 500;

/** The services a pipeline's panel gets: its pipeline's services and its own recent runs. */
export function panelServices(
  runtime: Runtime,
  queue: Queue | undefined,
  pipeline: string,
): PanelServices {
  return {
    services: pipelineServices(runtime, pipeline, { queue }),
    async recentRuns(options = {}): Promise<PanelRun[]> {
      const limit = Math.min(Math.max(1, options.limit ?? 50), MAX_RUNS);
      let q = typed<EngineTables>(runtime.db).selectFrom("tm_runs").selectAll();
      q = options.jobType
        ? q.where("job_type", "=", options.jobType)
        : q.where("job_type", "like", `${pipeline}.%`);
      const rows = await q
        .orderBy("started_at", "desc")
        .orderBy("run_id", "desc")
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        runId: r.run_id,
        jobName: r.job_name,
        jobType: r.job_type,
        status: r.status,
        startedAt: r.started_at,
        finishedAt: r.finished_at,
        summary: r.summary === null ? null : (JSON.parse(r.summary) as Record<string, unknown>),
      }));
    },
  };
}
