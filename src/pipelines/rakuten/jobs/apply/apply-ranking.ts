import type { ApplyInput } from "tidemark/kit";
import { RankRepo } from "../../repos/rank-repo.ts";
import type { NormalizedRanking } from "../../stages/normalize/types.ts";
import type { RakutenTables } from "../../tables.ts";
import type { ApplyMeta } from "./apply-meta.ts";

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
