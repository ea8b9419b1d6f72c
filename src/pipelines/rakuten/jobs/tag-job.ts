import type { JobContext, JobResult } from "tidemark";
import { type ApplyInput, typed } from "tidemark/kit";
import type { RakutenTagRaw } from "../client/raw-types.ts";
import type { TagParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import { TagRepo } from "../repos/tag-repo.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeTag } from "../stages/normalize/normalize-tag.ts";
import type { NormalizedTag } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { rakutenClientFor } from "./job-client.ts";
import { type ApplyMeta, numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** Bump when what the tag applier writes changes (not for a log line). */
export const TAG_APPLY_VERSION = 1;

/** Tag applier: the tag's group and the tag upserted. */
export async function applyTag(
  input: ApplyInput<NormalizedTag, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  const repo = new TagRepo(input.tx, meta.now());
  await repo.upsertTagGroup(input.document);
  await repo.upsertTag(input.document);
}

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
