/**
 * Content hashes equal to Python's
 * `hashlib.sha256(json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
 * sort_keys=True).encode("utf-8")).hexdigest()`.
 */
import { createHash, type Hash, hash as oneShotHash } from "node:crypto";
import { canonicalJson, writeCanonicalJson } from "./canonical-json.ts";
import { findLoneSurrogate } from "./lone-surrogate.ts";
import { parseJsonLossless } from "./lossless-json.ts";

/** SHA-256 hex of a value's canonical JSON (UTF-8). */
export function contentHash(value: unknown): string {
  // Chunks end on token boundaries and lone surrogates were rejected, so encoding each
  // chunk separately gives exactly the UTF-8 bytes of the whole canonical text.
  let single: string | undefined;
  let incremental: Hash | undefined;
  writeCanonicalJson(value, (chunk) => {
    if (incremental === undefined && single === undefined) {
      single = chunk;
      return;
    }
    if (incremental === undefined) {
      incremental = createHash("sha256").update(single ?? "", "utf8");
      single = undefined;
    }
    incremental.update(chunk, "utf8");
  });
  // Most values fit in one chunk; the one-shot hash is ~3x faster than a Hash object,
  // which matters when hashing millions of small rows.
  if (incremental === undefined) return oneShotHash("sha256", single ?? "", "hex");
  return incremental.digest("hex");
}

/**
 * A value's canonical JSON and its content hash in one pass, for callers that store the text
 * too (contentHash(value) === hash). canonicalJson has rejected lone surrogates, so the text's
 * UTF-8 bytes are exact without another scan.
 */
export function canonicalJsonAndHash(value: unknown): { text: string; hash: string } {
  const text = canonicalJson(value);
  return { text, hash: oneShotHash("sha256", text, "hex") };
}

/** SHA-256 hex of raw JSON text, hashed as Python would after json.loads (lexemes preserved). */
export function contentHashOfJsonText(text: string): string {
  return contentHash(parseJsonLossless(text));
}

/** SHA-256 hex of bytes, or of a string's UTF-8 encoding (lone surrogates throw, as in Python). */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === "string") {
    // Node would silently encode a lone surrogate as U+FFFD and collide with real U+FFFD.
    const index = findLoneSurrogate(data);
    if (index >= 0) {
      throw new TypeError(`Cannot encode lone surrogate at index ${index} as UTF-8`);
    }
  }
  return oneShotHash("sha256", data, "hex");
}
