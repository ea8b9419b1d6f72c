/**
 * True when S3 says the object does not exist: GetObject reports `NoSuchKey`, HeadObject (no body
 * to carry a code) reports `NotFound`. Other 404s such as `NoSuchBucket` are configuration
 * errors and must not be mistaken for a missing object, so the HTTP status alone is not used.
 */
export function isS3NotFound(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const name = (err as { name?: unknown }).name;
  return name === "NoSuchKey" || name === "NotFound";
}
