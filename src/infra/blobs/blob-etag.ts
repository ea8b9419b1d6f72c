/** Formats an MD5 digest as S3 reports it for a simple put: lower-case hex in double quotes. */
export function md5Etag(digest: Buffer): string {
  return `"${digest.toString("hex")}"`;
}

/**
 * Brings an ETag from any S3-compatible server into the quoted form. Servers and proxies differ:
 * some drop the quotes, some add a weak `W/` marker, and XML listings may carry them escaped.
 */
export function normalizeEtag(raw: string): string {
  const bare = raw
    .trim()
    .replace(/^W\//, "")
    .replace(/^(?:"|&quot;)|(?:"|&quot;)$/g, "");
  return `"${bare.toLowerCase()}"`;
}
