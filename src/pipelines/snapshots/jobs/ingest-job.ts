import type { JobContext } from "../../../engine/context/job-context.ts";
import type { JobResult } from "../../../engine/registry/pipeline-definition.ts";
import { resolveSettings } from "../config/settings.ts";
import { openStorage } from "../storage/open-storage.ts";
import { ingestSupplier } from "./ingest-supplier.ts";
import type { IngestResult } from "./types.ts";

/** The engine run's outcome for a seed result: PASS succeeded, FAIL failed, no input skipped. */
export function jobResultFor(result: IngestResult): JobResult {
  const summary = result as unknown as Record<string, unknown>;
  if (result.status === "PASS") return { status: "succeeded", summary };
  if (result.status === "FAIL") {
    return { status: "failed", summary, message: `FAIL ${result.reason_code}: ${result.detail}` };
  }
  return { status: "skipped", summary, message: result.detail ?? undefined };
}

/** `snapshots.ingest` job: one ingestion of params.supplier under the engine's lease. */
export async function runIngestJob(ctx: JobContext, supplier: string): Promise<JobResult> {
  const settings = resolveSettings(ctx.config);
  const result = await ingestSupplier(
    {
      storage: openStorage(settings, ctx.blobs),
      settings,
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      signal: ctx.signal,
      engineRunId: ctx.runId,
      jobStartAt: ctx.jobStartAt,
      dryRun: ctx.dryRun,
    },
    supplier,
  );
  return jobResultFor(result);
}
