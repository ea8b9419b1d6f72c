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

/** How an S3 store is named in its errors: bucket, prefix and endpoint (never credentials). */
export function describeS3Store(bucket: string, prefix: string, endpoint?: string): string {
  let where = `S3 blob store s3://${bucket}/${prefix}`;
  if (endpoint) {
    try {
      const url = new URL(endpoint);
      url.username = "";
      url.password = "";
      where += ` at ${url.origin}`;
    } catch {
      where += " at a custom endpoint";
    }
  }
  return where;
}

/**
 * Names the store in a failure, so "connect ECONNREFUSED" or "The specified bucket does not
 * exist" says which store it was. A missing object is left as it is: callers test for it. The
 * SDK's error name is kept, and the original is the cause.
 */
export function nameS3Failure(where: string, err: unknown): unknown {
  if (!(err instanceof Error) || isS3NotFound(err) || err.message.startsWith(where)) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const prefix = code && !err.message.includes(code) ? `${code}: ` : "";
  const named = new Error(`${where}: ${prefix}${err.message || err.name}`, { cause: err });
  named.name = err.name;
  return named;
}
