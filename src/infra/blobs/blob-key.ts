import { InvalidBlobKeyError } from "./blob-store.ts";

/** S3's limit on an object key, in UTF-8 bytes; enforced for every driver so keys stay portable. */
export const MAX_BLOB_KEY_BYTES = 1024;

// C0 controls (incl. NUL), DEL and C1 controls: invisible in logs and dangerous in file names.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// `C:` (drive-relative or absolute): refused so a key can never name another Windows drive.
const DRIVE_LETTER = /^[A-Za-z]:/;
// With the `u` flag a proper surrogate pair is one code point, so this only matches unpaired halves,
// which UTF-8 cannot encode: they would silently become U+FFFD and collide with other keys.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Throws InvalidBlobKeyError unless key is a safe, portable, `/`-separated relative path. */
export function validateBlobKey(key: string): void {
  const reason = blobKeyProblem(key);
  if (reason !== undefined) throw new InvalidBlobKeyError(String(key), reason);
}

/** True when validateBlobKey would accept key (for filtering keys found in storage). */
export function isValidBlobKey(key: string): boolean {
  return blobKeyProblem(key) === undefined;
}

/** Throws InvalidBlobKeyError unless prefix is empty or a valid key followed by `/` (a "folder"). */
export function validateBlobPrefix(prefix: string): void {
  if (typeof prefix !== "string") throw new InvalidBlobKeyError(String(prefix), "not a string");
  if (prefix === "") return;
  if (!prefix.endsWith("/")) {
    throw new InvalidBlobKeyError(prefix, "a list prefix must be empty or end with '/'");
  }
  const reason = blobKeyProblem(prefix.slice(0, -1));
  if (reason !== undefined) throw new InvalidBlobKeyError(prefix, reason);
}

/** Orders keys by their UTF-8 bytes, the order S3 lists in (differs from `<` for astral chars). */
export function compareBlobKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Why key is unsafe, or undefined when it is fine. */
function blobKeyProblem(key: unknown): string | undefined {
  // Callers may be untyped JavaScript or parsed JSON, so check the type at runtime too.
  if (typeof key !== "string") return "not a string";
  if (key === "") return "empty key";
  if (key.startsWith("/")) return "absolute path";
  if (DRIVE_LETTER.test(key)) return "drive-letter path";
  if (key.includes("\\")) return "backslash";
  if (CONTROL_CHARS.test(key)) return "control character";
  if (LONE_SURROGATE.test(key)) return "unpaired UTF-16 surrogate";
  if (Buffer.byteLength(key, "utf8") > MAX_BLOB_KEY_BYTES) {
    return `longer than ${MAX_BLOB_KEY_BYTES} UTF-8 bytes`;
  }
  for (const segment of key.split("/")) {
    if (segment === "") return "empty path segment";
    if (segment === "." || segment === "..") return `'${segment}' path segment`;
  }
  return undefined;
}
