import { sha256Hex } from "tidemark/kit";
import { plainText } from "./plain-text.ts";

/**
 * Version of the recipe below; it is part of every source hash, so bumping it makes every
 * item's source "changed" and `rakuten.embedding` embeds every item again. Bump it when the
 * recipe changes what an embedding means (fields added, the caption length), not for a log line.
 */
export const EMBEDDING_SOURCE_APPLY_VERSION = 2;

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
 * Name, catch copy and caption are read as plain text: HTML tags dropped, character
 * references (`&nbsp;`, `&gt;`) decoded, before the caption is cut.
 */
export function buildSourceText(p: SourceParts): string {
  // White space collapsed before the cut: a run of `<br>`s must not use up the 400 characters.
  const plainCaption = p.itemCaption ? plainText(p.itemCaption).replace(/\s+/gu, " ").trim() : "";
  const caption = Array.from(plainCaption).slice(0, CAPTION_CHARS).join("");
  const lines = [
    p.itemName === null ? null : plainText(p.itemName),
    p.catchcopy === null ? null : plainText(p.catchcopy),
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
