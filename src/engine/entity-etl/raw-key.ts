/** What the raw key of one normalized document is made of. */
export interface RawKeyParts {
  source: string;
  entity: string;
  sourceId: string;
  contentHash: string;
}

const HASH = /^[0-9a-f]{64}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const FORBIDDEN = /[/\\\u0000-\u001f\u007f]/;

/** Why a key segment cannot appear in a raw key, or undefined when it can. */
export function rawSegmentProblem(value: string): string | undefined {
  if (typeof value !== "string" || value === "") return "is empty";
  if (value === "." || value === "..") return `is ${JSON.stringify(value)}`;
  if (FORBIDDEN.test(value)) return "contains '/', '\\' or a control character";
  return undefined;
}

/** Throws a one-line TypeError unless `value` can be the `what` segment of a raw key. */
export function checkRawSegment(what: string, value: string): void {
  const problem = rawSegmentProblem(value);
  if (problem !== undefined) {
    throw new TypeError(`raw key: ${what} ${JSON.stringify(value)} ${problem}`);
  }
}

/**
 * The immutable key of a normalized document (key scheme A):
 * `raw/source=<source>/entity=<entity>/source_id=<source_id>/hash=<content_hash>.json`.
 */
export function rawKey(parts: RawKeyParts): string {
  if (!HASH.test(parts.contentHash)) {
    throw new TypeError(
      `raw key: content hash ${JSON.stringify(parts.contentHash)} is not SHA-256 hex`,
    );
  }
  return `${rawTargetPrefix(parts)}hash=${parts.contentHash}.json`;
}

/** The folder holding every version of one target: `raw/source=…/entity=…/source_id=…/`. */
export function rawTargetPrefix(parts: Omit<RawKeyParts, "contentHash">): string {
  checkRawSegment("source", parts.source);
  checkRawSegment("entity", parts.entity);
  checkRawSegment("source_id", parts.sourceId);
  return `raw/source=${parts.source}/entity=${parts.entity}/source_id=${parts.sourceId}/`;
}

/** The content hash named by a raw key, or undefined when the key is not a raw document key. */
export function hashOfRawKey(key: string): string | undefined {
  const match = /\/hash=([0-9a-f]{64})\.json$/.exec(key);
  return match?.[1];
}
