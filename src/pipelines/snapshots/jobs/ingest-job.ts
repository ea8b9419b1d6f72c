import type { JobContext, JobResult } from "tidemark";
import type { SnapshotSettings } from "../settings.ts";
import { ingestSupplier } from "../stages/ingest/ingest-supplier.ts";
import { newSnapshotRunId, parseSnapshotRunId } from "../stages/ingest/run-id.ts";
import type { IngestResult } from "../stages/ingest/types.ts";
import { openStorage } from "../stages/publish/storage/open-storage.ts";

/** The engine run's outcome for an ingestion result: PASS succeeded, FAIL failed, no input skipped. */
export function jobResultFor(result: IngestResult): JobResult {
  const summary = result as unknown as Record<string, unknown>;
  if (result.status === "PASS") return { status: "succeeded", summary };
  if (result.status === "FAIL") {
    const message = `FAIL ${result.reason_code}: ${result.detail}`;
    // A missing or invalid supplier config is the user's to fix: exit 2, as `snapshots run`.
    const config = result.reason_code?.startsWith("CONFIG_") ?? false;
    return { status: "failed", summary, message, ...(config ? { exitCode: 2 as const } : {}) };
  }
  return { status: "skipped", summary, message: result.detail ?? undefined };
}

/**
 * The snapshots run id of an engine run: the engine's own id, which `runIdPrefix` makes
 * `<supplier>_<YYYYMMDDTHHMMSSZ>_<rand6>`. A run id made elsewhere under the job's name (a run
 * queued before `runIdPrefix` applied) would not name the supplier, which gc and recovery read
 * from the id: such a run gets a supplier id of its own, and the manifest keeps the engine's.
 */
export function snapshotRunIdFor(ctx: JobContext, supplier: string): string {
  if (parseSnapshotRunId(ctx.runId)?.supplier === supplier) return ctx.runId;
  const own = newSnapshotRunId(supplier, ctx.jobStartAt);
  ctx.logger.warn(
    { engine_run_id: ctx.runId, run_id: own },
    "the engine run id does not name the supplier; the snapshots run has its own id",
  );
  return own;
}

/** `snapshots.ingest` job: one ingestion of params.supplier under the engine's lease. */
export async function runIngestJob(
  ctx: JobContext<SnapshotSettings>,
  supplier: string,
): Promise<JobResult> {
  const { settings } = ctx;
  const result = await ingestSupplier(
    {
      storage: openStorage(settings, ctx.blobs),
      settings,
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      signal: ctx.signal,
      runId: snapshotRunIdFor(ctx, supplier),
      engineRunId: ctx.runId,
      dryRun: ctx.dryRun,
      commit: (effect) => ctx.commit(() => effect()),
    },
    supplier,
  );
  return jobResultFor(result);
}
