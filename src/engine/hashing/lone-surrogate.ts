/**
 * Lone-surrogate detection: such strings exist in JS and Python but have no UTF-8 encoding
 * (Python's `.encode("utf-8")` raises; Node silently substitutes U+FFFD).
 */

// With the `u` flag a well-formed surrogate pair is one astral code point, so `\p{Cs}`
// only matches lone surrogates.
const LONE_SURROGATE = /\p{Cs}/u;

// String.prototype.isWellFormed (ES2024) ships in Node 20 but not in the ES2023 typings.
interface WellFormedCheck {
  isWellFormed(): boolean;
}

/** Index of the first lone surrogate in `text`, or -1 when it is well-formed UTF-16. */
export function findLoneSurrogate(text: string): number {
  // The native check is several times faster than the regex on the (common) clean path.
  if ((text as unknown as WellFormedCheck).isWellFormed()) return -1;
  return text.search(LONE_SURROGATE);
}
