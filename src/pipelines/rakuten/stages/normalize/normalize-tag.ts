import type { RakutenTagGroupPayload } from "../../client/schemas.ts";
import { sortKeys, text } from "./rules.ts";
import type { NormalizedTag } from "./types.ts";

/** What a tag normalization needs: the id asked for and the groups answered. */
export interface TagInput {
  tagId: number;
  tagGroups: readonly RakutenTagGroupPayload[];
}

/**
 * A Tag Search answer → the asked tag with its group; tagName and tagGroupName trimmed, empty
 * → null. Throws when the answer does not contain the tag.
 */
export function normalizeTag(raw: TagInput): NormalizedTag {
  for (const group of raw.tagGroups) {
    const tag = group.tags.find((t) => t.tagId === raw.tagId);
    if (tag === undefined) continue;
    return sortKeys<NormalizedTag>({
      tagId: tag.tagId,
      tagName: text(tag.tagName),
      parentTagId: tag.parentTagId,
      tagGroupId: group.tagGroupId,
      tagGroupName: text(group.tagGroupName),
    });
  }
  throw new Error(`tag ${raw.tagId} is not in the answer`);
}
