// `<url>; param; param, <url>; …` — one link per match; commas inside <…> stay in the URL.
const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
const REL = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i;

/** The `rel="next"` target of an RFC 8288 `Link` header (as written: may be relative). */
export function nextLinkFromHeader(headers: Headers): string | undefined {
  const value = headers.get("link");
  if (!value) return undefined;
  for (const match of value.matchAll(LINK)) {
    const rel = REL.exec(match[2] ?? "");
    const rels = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (rels.includes("next")) return match[1]?.trim();
  }
  return undefined;
}
