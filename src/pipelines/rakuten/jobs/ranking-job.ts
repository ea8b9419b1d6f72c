import type { JobContext, JobResult } from "tidemark";
import { typed } from "tidemark/kit";
import type { RakutenRankingRaw } from "../client/raw-types.ts";
import type { RankingParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeRanking } from "../stages/normalize/normalize-ranking.ts";
import type { NormalizedRanking } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { applyRanking, RANKING_APPLY_VERSION } from "./apply/apply-ranking.ts";
import { rakutenClientFor } from "./job-client.ts";
import { numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** `rakuten.ranking`: each genre's realtime ranking through the entity ETL. */
export async function runRankingJob(
  ctx: JobContext<RakutenSettings>,
  params: RankingParams,
): Promise<JobResult> {
  const client = rakutenClientFor(ctx, params.concurrency);
  const policy = new RakutenPolicy(typed<RakutenTables>(ctx.db));
  const result = await runRakutenEntity<RakutenRankingRaw, NormalizedRanking>({
    ctx,
    entity: "ranking",
    params,
    targets: policy.rankingGenreIds(params.genre_ids),
    fetch: (target, signal) => client.ranking(numericTarget(target), signal),
    normalize: normalizeRanking,
    apply: applyRanking,
    applyVersion: RANKING_APPLY_VERSION,
  });
  return { ...result, summary: { ...result.summary, api: client.stats } };
}
