import type { JobContext, JobResult } from "tidemark";
import { typed } from "tidemark/kit";
import type { RakutenItemRaw } from "../client/raw-types.ts";
import type { ItemParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeItem } from "../stages/normalize/normalize-item.ts";
import type { NormalizedItem } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { applyItem, applyItems, ITEM_APPLY_VERSION } from "./apply/apply-item.ts";
import { rakutenClientFor } from "./job-client.ts";
import { runRakutenEntity } from "./run-rakuten-entity.ts";

/**
 * `rakuten.item`: the items of the genres' current rankings plus the job's item
 * codes, through the entity ETL. An item code Rakuten answers with no item is `not_found`.
 */
export async function runItemJob(
  ctx: JobContext<RakutenSettings>,
  params: ItemParams,
): Promise<JobResult> {
  const client = rakutenClientFor(ctx, params.concurrency);
  const policy = new RakutenPolicy(typed<RakutenTables>(ctx.db));
  // A genre named in the params but never ranked gives no target: said, not silently skipped.
  const unranked = await policy.genresWithoutRanking(params.genre_ids ?? []);
  if (unranked.length > 0) {
    ctx.logger.warn(
      { genre_ids: unranked },
      "no stored ranking for these genres: run rakuten.ranking for them first",
    );
  }
  const result = await runRakutenEntity<RakutenItemRaw, NormalizedItem>({
    ctx,
    entity: "item",
    params,
    targets: () => policy.itemCodes(params.genre_ids, params.item_codes),
    fetch: (target, signal) => client.searchItemByCode(target, signal),
    normalize: normalizeItem,
    apply: applyItem,
    applyBatch: applyItems,
    applyVersion: ITEM_APPLY_VERSION,
  });
  const summary = {
    ...result.summary,
    ...(unranked.length > 0 ? { genres_without_ranking: unranked } : {}),
    api: client.stats,
  };
  return { ...result, summary };
}
