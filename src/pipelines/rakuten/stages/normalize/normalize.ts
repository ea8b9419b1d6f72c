import { contentHash } from "tidemark/kit";
import type { RakutenItemPayload } from "../../client/schemas.ts";
import { type GenreInput, normalizeGenre } from "./normalize-genre.ts";
import { normalizeItem } from "./normalize-item.ts";
import { normalizeRanking, type RankingInput } from "./normalize-ranking.ts";
import { normalizeTag, type TagInput } from "./normalize-tag.ts";
import type { NormalizedByEntity, RakutenEntity } from "./types.ts";

/** The raw input each entity's normalization takes. */
export interface RawByEntity {
  ranking: RankingInput;
  item: RakutenItemPayload;
  genre: GenreInput;
  tag: TagInput;
}

/** `normalize(entity, raw)`: one entry point over the four entities. */
export function normalize<E extends RakutenEntity>(
  entity: E,
  raw: RawByEntity[E],
): NormalizedByEntity[E] {
  switch (entity) {
    case "ranking":
      return normalizeRanking(raw as RankingInput) as NormalizedByEntity[E];
    case "item":
      return normalizeItem(raw as RakutenItemPayload) as NormalizedByEntity[E];
    case "genre":
      return normalizeGenre(raw as GenreInput) as NormalizedByEntity[E];
    case "tag":
      return normalizeTag(raw as TagInput) as NormalizedByEntity[E];
    default:
      throw new Error(`unknown entity ${String(entity)}`);
  }
}

/** The content hash: the engine's Python-identical canonical-JSON SHA-256. */
export function computeContentHash(normalized: object): string {
  return contentHash(normalized);
}
