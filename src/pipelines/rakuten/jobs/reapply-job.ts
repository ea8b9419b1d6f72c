import type { JobContext, JobResult } from "tidemark";
import { type ReapplyResult, reapplyEntity } from "tidemark/kit";
import type { ReapplyParams } from "../params.ts";
import { stagingLedger } from "../repos/staging-ledger.ts";
import { RAKUTEN_SOURCE } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { applyMetaOf, batchApplier } from "./apply/apply-meta.ts";
import { ENTITY_APPLIERS } from "./apply/entity-appliers.ts";

/**
 * `rakuten.reapply`: every staging row of the entity not applied by its current apply version
 * is applied again, its normalized document read from the raw store — no API call.
 */
export async function runReapplyJob(ctx: JobContext, params: ReapplyParams): Promise<JobResult> {
  const { version, apply, applyBatch } = ENTITY_APPLIERS[params.entity];
  const meta = applyMetaOf(ctx);
  const result: ReapplyResult = await reapplyEntity<unknown, RakutenTables>({
    ctx,
    source: RAKUTEN_SOURCE,
    entity: params.entity,
    ledger: stagingLedger(ctx),
    apply: (input) => apply(input, meta),
    applyBatch: batchApplier(applyBatch, meta),
    applyVersion: version,
    maxFailureRate: params.max_failure_rate,
    concurrency: params.concurrency,
    batchSize: params.batch_size,
  });
  return result;
}
