import type { JobContext, JobResult } from "tidemark";
import { type ApplyInput, typed } from "tidemark/kit";
import type { RakutenGenreRaw } from "../client/raw-types.ts";
import type { GenreParams } from "../params.ts";
import { GenreRepo } from "../repos/genre-repo.ts";
import { RakutenPolicy } from "../repos/policy.ts";
import type { RakutenSettings } from "../settings.ts";
import { normalizeGenre } from "../stages/normalize/normalize-genre.ts";
import type { NormalizedGenre } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { rakutenClientFor } from "./job-client.ts";
import { type ApplyMeta, numericTarget, runRakutenEntity } from "./run-rakuten-entity.ts";

/** Bump when what the genre applier writes changes (not for a log line). */
export const GENRE_APPLY_VERSION = 1;

/** Genre applier: the genre row upserted. */
export async function applyGenre(
  input: ApplyInput<NormalizedGenre, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  await new GenreRepo(input.tx, meta.now()).upsertGenre(input.document, input.contentHash);
}

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
