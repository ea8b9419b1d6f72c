import type { JobContext, JobResult } from "tidemark";
import { typed } from "tidemark/kit";
import type { RakutenTagRaw } from "../client/raw-types.ts";
import type { TagParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeTag } from "../stages/normalize/normalize-tag.ts";
import type { NormalizedTag } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { applyTag, TAG_APPLY_VERSION } from "./apply/apply-tag.ts";
import { rakutenClientFor } from "./job-client.ts";
import { numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** `rakuten.tag`: the tags of the items saved today, through the entity ETL. */
export async function runTagJob(
  ctx: JobContext<RakutenSettings>,
  params: TagParams,
): Promise<JobResult> {
  const client = rakutenClientFor(ctx, params.concurrency);
  const policy = new RakutenPolicy(typed<RakutenTables>(ctx.db));
  const result = await runRakutenEntity<RakutenTagRaw, NormalizedTag>({
    ctx,
    entity: "tag",
    params,
    targets: () => policy.tagIdsFromTodayItems(ctx.dayStart, params.tag_ids),
    fetch: (target, signal) => client.tag(numericTarget(target), signal),
    normalize: normalizeTag,
    apply: applyTag,
    applyVersion: TAG_APPLY_VERSION,
  });
  return { ...result, summary: { ...result.summary, api: client.stats } };
}
