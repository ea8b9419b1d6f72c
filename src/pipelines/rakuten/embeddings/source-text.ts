import { sha256Hex } from "../../../engine/index.ts";

/**
 * Version of the recipe below; it is part of every source hash, so bumping it makes every
 * item's source "changed" and `rakuten.embedding` embeds every item again. Bump it when the
 * recipe changes what an embedding means (fields added, the caption length), not for a log line.
 */
export const EMBEDDING_SOURCE_APPLY_VERSION = 1;

/** Characters of the caption kept: the start says what the item is, the rest is shop boilerplate. */
export const CAPTION_CHARS = 400;

/** A UTF-16 half without its other half: not text, and not hashable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** What an item's text is built from. */
export interface SourceParts {
  itemName: string | null;
  catchcopy: string | null;
  genreName: string | null;
  tagNames: readonly string[];
  itemCaption: string | null;
}

/**
 * The text an item is embedded from, one field a line, empty fields left out: name,
 * catch copy, `ジャンル: <genre>`, `タグ: <tag>、<tag>`, then the caption's first 400 characters.
 */
export function buildSourceText(p: SourceParts): string {
  const caption = p.itemCaption ? Array.from(p.itemCaption).slice(0, CAPTION_CHARS).join("") : "";
  const lines = [
    p.itemName,
    p.catchcopy,
    p.genreName ? `ジャンル: ${p.genreName}` : null,
    p.tagNames.length > 0 ? `タグ: ${p.tagNames.join("、")}` : null,
    caption,
  ];
  return lines
    .map((l) => (l ?? "").replace(LONE_SURROGATE, "\uFFFD").replace(/\s+/gu, " ").trim())
    .filter((l) => l !== "")
    .join("\n");
}

/** SHA-256 of the recipe version and the text: what `rakuten.embedding` compares. */
export function sourceHash(text: string): string {
  return sha256Hex(`v${EMBEDDING_SOURCE_APPLY_VERSION}\n${text}`);
}
