import { createHash } from "node:crypto";
import { normalizeQuery } from "../../params.ts";

/**
 * The query set's identity: each query trimmed with whitespace runs collapsed,
 * sorted, joined with `\n`, SHA-256 in full (64 hex chars). No lowercasing: Google may read
 * case differently, so `intitle:Go` and `intitle:go` are different sets.
 */
export function computeQuerySetHash(queries: readonly string[]): string {
  const normalized = normalizedQuerySet(queries).join("\n");
  return createHash("sha256").update(normalized).digest("hex");
}

/** The queries as the hash sees them: normalised and sorted (code-unit order, like JS sort). */
export function normalizedQuerySet(queries: readonly string[]): string[] {
  return queries.map(normalizeQuery).sort();
}

/** The 16-char form used in logs only; the database always keeps the full hash. */
export function shortHash(hash: string): string {
  return hash.slice(0, 16);
}
