/** Cosine similarity of two vectors of one length; 0 when either is all zeros. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) {
    throw new RangeError(`vectors differ in length: ${a.length} and ${b.length}`);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}

/** A stored vector (JSON text, or already parsed by the driver) as numbers; throws when malformed. */
export function parseVector(stored: unknown): number[] {
  const value = typeof stored === "string" ? (JSON.parse(stored) as unknown) : stored;
  if (!Array.isArray(value) || !value.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw new TypeError("stored vector is not an array of finite numbers");
  }
  return value as number[];
}
