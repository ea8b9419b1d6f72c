import type { ApplyInput } from "tidemark/kit";
import { GenreRepo } from "../../repos/genre-repo.ts";
import type { NormalizedGenre } from "../../stages/normalize/types.ts";
import type { RakutenTables } from "../../tables.ts";
import type { ApplyMeta } from "./apply-meta.ts";

/** Bump when what the genre applier writes changes (not for a log line). */
export const GENRE_APPLY_VERSION = 1;

/** Genre applier: the genre row upserted. */
export async function applyGenre(
  input: ApplyInput<NormalizedGenre, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  await new GenreRepo(input.tx, meta.now()).upsertGenre(input.document, input.contentHash);
}
