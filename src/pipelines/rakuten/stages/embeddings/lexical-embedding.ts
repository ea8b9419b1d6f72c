/**
 * The `local` embedding: a LEXICAL vector, not a semantic one. It hashes the character
 * 1-, 2- and 3-grams of the NFKC-normalised, lower-cased text into a fixed number of
 * dimensions (signed feature hashing, sublinear term weights) and scales the result to unit
 * length. Two texts are close when they share character sequences ("ハンドタオル" and
 * "タオル" are; "ハンカチ" and "タオル" are not, although they are related in meaning).
 * Character n-grams suit Japanese, which has no spaces between words. It needs no model, no
 * network and gives the same vector on every machine, so the chain and `rakuten similar`
 * work offline; use the `openai-compatible` provider for semantic vectors.
 */

/**
 * Version of the recipe below. The default model name (`local-char-ngram-v1`) carries it: a
 * change of recipe gets a new name, so every item is embedded again.
 */
export const LEXICAL_EMBEDDING_VERSION = 1;
/** The n-gram lengths hashed. */
const NGRAM_SIZES = [1, 2, 3] as const;
/** Unigrams alone say little; they weigh less than bigrams and trigrams. */
const NGRAM_WEIGHT: Readonly<Record<number, number>> = { 1: 0.5, 2: 1, 3: 1 };

/** NFKC, lower case, runs of white space as one space, trimmed: the text the n-grams come from. */
export function lexicalNormalize(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

/** FNV-1a (32 bit) of a string's UTF-16 code units, salted by the n-gram length. */
function fnv1a(s: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The lexical embedding of `text`: unit length, or all zeros for a text without characters. */
export function lexicalEmbedding(text: string, dimensions: number): number[] {
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  }
  const chars = Array.from(lexicalNormalize(text));
  const counts = new Map<string, number>();
  for (const n of NGRAM_SIZES) {
    for (let i = 0; i + n <= chars.length; i++) {
      const gram = `${n}\u0000${chars.slice(i, i + n).join("")}`;
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    }
  }
  const vector = new Array<number>(dimensions).fill(0);
  for (const [gram, count] of counts) {
    const n = gram.charCodeAt(0) - 48;
    const h = fnv1a(gram, n);
    // The top bit picks the sign, so colliding n-grams cancel out on average.
    const sign = h & 0x80000000 ? -1 : 1;
    vector[(h & 0x7fffffff) % dimensions]! += sign * (NGRAM_WEIGHT[n] ?? 1) * Math.sqrt(count);
  }
  return l2Normalize(vector);
}

/** `v` scaled to unit length (all zeros stays all zeros). */
export function l2Normalize(v: number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return v;
  const norm = Math.sqrt(sum);
  return v.map((x) => x / norm);
}
