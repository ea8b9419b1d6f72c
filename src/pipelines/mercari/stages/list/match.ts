/**
 * What "matches a product's setting" means (the match rule of docs/pipelines/mercari.md): a
 * listing matches when a search with the product's current setting (keyword, category, price
 * range, exclude keyword) returned it. Mercari's search decides relevance (synonyms, kana and
 * romaji, brand dictionaries); names are never filtered again. Each row records the setting's
 * fingerprint it was found under, so inspect can drop rows found under an older setting, and
 * rows whose price moved outside the range.
 */
import { contentHash } from "tidemark/kit";

/** The parts of a setting a search is made of. */
export interface MatchSetting {
  keyword: string;
  category_id: number | null;
  min_price: number | null;
  max_price: number | null;
  /** Words Mercari leaves out of the search (accessories, junk); null or "" for none. */
  exclude_keyword: string | null;
}

/** A short digest of the search a setting makes: equal fingerprints, equal searches. */
export function settingFingerprint(setting: MatchSetting): string {
  return contentHash({
    keyword: setting.keyword,
    category_id: setting.category_id,
    min_price: setting.min_price,
    max_price: setting.max_price,
    exclude_keyword: setting.exclude_keyword || null,
  }).slice(0, 32);
}

/** True when the price lies within the setting's range (inclusive; an unset bound is open). */
export function priceInRange(setting: MatchSetting, price: number): boolean {
  if (setting.min_price !== null && price < setting.min_price) return false;
  if (setting.max_price !== null && price > setting.max_price) return false;
  return true;
}

/** A stored row as the rule sees it. */
export interface MatchRow {
  price: number;
  setting_fingerprint: string | null;
}

/** Builds the predicate once per setting: found under this very setting, price in range. */
export function settingMatcher(setting: MatchSetting): (row: MatchRow) => boolean {
  const fingerprint = settingFingerprint(setting);
  return (row) => row.setting_fingerprint === fingerprint && priceInRange(setting, row.price);
}
