import type { ApplyInput } from "tidemark/kit";
import { TagRepo } from "../../repos/tag-repo.ts";
import type { NormalizedTag } from "../../stages/normalize/types.ts";
import type { RakutenTables } from "../../tables.ts";
import type { ApplyMeta } from "./apply-meta.ts";

/** Bump when what the tag applier writes changes (not for a log line). */
export const TAG_APPLY_VERSION = 1;

/** Tag applier: the tag's group and the tag upserted. */
export async function applyTag(
  input: ApplyInput<NormalizedTag, RakutenTables>,
  meta: ApplyMeta,
): Promise<void> {
  const repo = new TagRepo(input.tx, meta.now());
  await repo.upsertTagGroup(input.document);
  await repo.upsertTag(input.document);
}
