import type { ApplyInput } from "tidemark/kit";
import type { RakutenEntity } from "../../stages/normalize/types.ts";
import type { RakutenTables } from "../../tables.ts";
import { applyGenre, GENRE_APPLY_VERSION } from "./apply-genre.ts";
import { applyItem, applyItems, ITEM_APPLY_VERSION } from "./apply-item.ts";
import type { ApplyMeta, BatchApply } from "./apply-meta.ts";
import { applyRanking, RANKING_APPLY_VERSION } from "./apply-ranking.ts";
import { applyTag, TAG_APPLY_VERSION } from "./apply-tag.ts";

/** An entity's applier and its current apply version. */
export interface EntityApplier {
  readonly version: number;
  // biome-ignore lint/suspicious/noExplicitAny: each entity's applier takes its own document type.
  readonly apply: (input: ApplyInput<any, RakutenTables>, meta: ApplyMeta) => Promise<void>;
  /** Applies a whole batch at once, when the entity has a set-based applier. */
  // biome-ignore lint/suspicious/noExplicitAny: each entity's applier takes its own document type.
  readonly applyBatch?: BatchApply<any>;
}

/** The applier and apply version of each entity (what `rakuten reapply` and `status` use). */
export const ENTITY_APPLIERS: { readonly [E in RakutenEntity]: EntityApplier } = {
  ranking: { version: RANKING_APPLY_VERSION, apply: applyRanking },
  item: { version: ITEM_APPLY_VERSION, apply: applyItem, applyBatch: applyItems },
  genre: { version: GENRE_APPLY_VERSION, apply: applyGenre },
  tag: { version: TAG_APPLY_VERSION, apply: applyTag },
};
