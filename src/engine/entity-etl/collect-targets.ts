import type { TargetSource } from "./etl-types.ts";

/** The targets in first-seen order, each once, at most `limit` of them. */
export async function collectTargets(source: TargetSource, limit?: number): Promise<string[]> {
  const iterable = typeof source === "function" ? await source() : source;
  const seen = new Set<string>();
  const cap = limit ?? Number.POSITIVE_INFINITY;
  if (cap <= 0) return [];
  for await (const target of iterable) {
    seen.add(target);
    if (seen.size >= cap) break;
  }
  return [...seen];
}
