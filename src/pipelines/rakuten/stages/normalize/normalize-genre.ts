import type { RakutenGenreRefPayload } from "../../client/schemas.ts";
import { sortKeys, text } from "./rules.ts";
import type { NormalizedGenre, NormalizedGenreRef } from "./types.ts";

/** What a genre normalization needs (Genre Search's `current`, `parents`, `children`). */
export interface GenreInput {
  current: RakutenGenreRefPayload;
  parents: readonly RakutenGenreRefPayload[];
  children: readonly RakutenGenreRefPayload[];
}

function ref(g: RakutenGenreRefPayload): NormalizedGenreRef {
  return sortKeys<NormalizedGenreRef>({
    genreId: g.genreId,
    genreName: text(g.genreName),
    genreLevel: g.genreLevel,
  });
}

/**
 * A Genre Search answer → its normalized document: the genre, its ancestors and its children,
 * all in API order; genreName trimmed, empty → null (the root's name is ""); `brothers` left
 * out (a sibling's change is that sibling's own change).
 */
export function normalizeGenre(raw: GenreInput): NormalizedGenre {
  const current = ref(raw.current);
  return sortKeys<NormalizedGenre>({
    ...current,
    parents: raw.parents.map(ref),
    children: raw.children.map(ref),
  });
}
