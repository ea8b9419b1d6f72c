import type { JobContext, JobResult } from "tidemark";
import { type ApplyInput, typed } from "tidemark/kit";
import type { RakutenRankingRaw } from "../client/raw-types.ts";
import type { RankingParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import { RankRepo } from "../repos/rank-repo.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeRanking } from "../stages/normalize/normalize-ranking.ts";
import type { NormalizedRanking } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { rakutenClientFor } from "./job-client.ts";
import { type ApplyMeta, numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** Bump when what the ranking applier writes changes (not for a log line). */
export const RANKING_APPLY_VERSION = 1;

/** Ranking applier: a rank snapshot of the genre (only called when its ranking changed). */
export async function applyRanking(
  input: ApplyInput<NormalizedRanking, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  await new RankRepo(input.tx).insertRankSnapshot({
    runId: meta.runId,
    ranking: input.document,
    contentHash: input.contentHash,
    collectedAt: meta.now(),
  });
}

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
