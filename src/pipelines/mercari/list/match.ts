/**
 * What "matches a product's setting" means for a stored row (the inspect step): its price lies
 * within the setting's range, and every keyword token appears in its name, both compared after
 * NFKC normalisation and case folding (so `ＰＳ５` matches `ps5`). Tokens are the keyword split
 * on whitespace (full-width spaces included). The category is not checked: rows do not store it.
 */

/** NFKC + case folding, the form names and keywords are compared in. */
export function foldText(text: string): string {
  return text.normalize("NFKC").toLowerCase().toUpperCase().toLowerCase();
}

/** The keyword's tokens in folded form (empty tokens dropped). */
export function keywordTokens(keyword: string): string[] {
  return foldText(keyword)
    .split(/\s+/u)
    .filter((t) => t.length > 0);
}

/** The parts of a setting the match looks at. */
export interface MatchSetting {
  keyword: string;
  min_price: number | null;
  max_price: number | null;
}

/** Builds the predicate once per setting (tokens folded once). */
export function settingMatcher(
  setting: MatchSetting,
): (row: { name: string; price: number }) => boolean {
  const tokens = keywordTokens(setting.keyword);
  return (row) => {
    if (setting.min_price !== null && row.price < setting.min_price) return false;
    if (setting.max_price !== null && row.price > setting.max_price) return false;
    const name = foldText(row.name);
    return tokens.every((t) => name.includes(t));
  };
}
