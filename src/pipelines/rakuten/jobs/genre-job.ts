import type { JobContext, JobResult } from "tidemark";
import { typed } from "tidemark/kit";
import type { RakutenGenreRaw } from "../client/raw-types.ts";
import type { GenreParams } from "../params.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeGenre } from "../stages/normalize/normalize-genre.ts";
import type { NormalizedGenre } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { applyGenre, GENRE_APPLY_VERSION } from "./apply/apply-genre.ts";
import { rakutenClientFor } from "./job-client.ts";
import { numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** `rakuten.genre`: the genres of the items saved today, through the entity ETL. */
export async function runGenreJob(
  ctx: JobContext<RakutenSettings>,
  params: GenreParams,
): Promise<JobResult> {
  const client = rakutenClientFor(ctx, params.concurrency);
  const policy = new RakutenPolicy(typed<RakutenTables>(ctx.db));
  const result = await runRakutenEntity<RakutenGenreRaw, NormalizedGenre>({
    ctx,
    entity: "genre",
    params,
    targets: () => policy.genreIdsFromTodayItems(ctx.dayStart, params.genre_ids),
    fetch: (target, signal) => client.genre(numericTarget(target), signal),
    normalize: normalizeGenre,
    apply: applyGenre,
    applyVersion: GENRE_APPLY_VERSION,
  });
  return { ...result, summary: { ...result.summary, api: client.stats } };
}
